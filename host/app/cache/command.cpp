// cache/command.cpp: `warplab cache info|clear [--json]`: where the compile cache lives,
// how many entries and bytes it holds against its bound, and emptying it.
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command.hpp"
#include "cu/attributes.hpp"
#include "rtc/cache.hpp"
#include "rtc/error.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

int run_cache(const std::string& action, bool json) {
  rtc::Cache cache(rtc::Cache::default_dir());
  if (!cache.warning().empty()) std::cerr << "warplab: " << cache.warning() << "\n";
  if (action == "clear") {
    const rtc::Cache::Cleared c = cache.clear();  // a folder not warplab's cache: bad input
    if (json)
      std::cout << nlohmann::ordered_json{{"dir", cache.dir().string()},
                                          {"removed", c.removed},
                                          {"failed", c.failed},
                                          {"foreign", c.foreign}}
                       .dump(2)
                << "\n";
    else
      std::cout << "removed " << sys::plural(c.removed, "entry", "entries") << " from "
                << cache.dir().string() << "\n";
    if (c.foreign && !json) std::cout << "left " << c.foreign << " file(s) warplab did not write\n";
    if (c.failed)
      throw Error(ErrorKind::bad_input, "could not remove " + std::to_string(c.failed) + " of " +
                                            std::to_string(c.failed + c.removed) + " entries from " +
                                            cache.dir().string() + " (is it read-only?)");
    return kOk;
  }
  const rtc::Cache::Info i = cache.info();
  if (json) {
    std::cout << nlohmann::ordered_json{{"dir", i.dir.string()},
                                        {"entries", i.entries},
                                        {"bytes", i.bytes},
                                        {"max_bytes", i.max_bytes}}
                     .dump(2)
              << "\n";
    return kOk;
  }
  std::cout << "cache:   " << i.dir.string() << "\n"
            << "entries: " << i.entries << "\n"
            << "size:    " << cu::format_bytes(i.bytes) << " of " << cu::format_bytes(i.max_bytes)
            << " (least recently used entries go first)\n"
            << "set WARPLAB_CACHE_DIR to move it, WARPLAB_CACHE_MAX_MB to bound it, "
               "--no-cache to bypass it\n";
  return kOk;
}

}  // namespace

void add_cache_command(CLI::App& app, const Globals&, Commands& out) {
  auto action = std::make_shared<std::string>("info");
  auto json = std::make_shared<bool>(false);
  auto* sub = app.add_subcommand("cache", "the on-disk compile cache: info | clear");
  sub->add_option("action", *action, "info (default) or clear")
      ->check(CLI::IsMember({"info", "clear"}))
      ->type_name("info|clear");
  sub->add_flag("--json", *json, "print {dir, entries, bytes, max_bytes} (clear: what it removed)");
  set_help(sub, {"warplab cache", "warplab cache info --json", "warplab cache clear"},
           "WARPLAB_CACHE_DIR moves the cache, WARPLAB_CACHE_MAX_MB bounds it; --no-cache "
           "bypasses it for one command.\n");
  out.push_back({sub, [action, json] { return run_cache(*action, *json); }});
}

}  // namespace warplab::app
