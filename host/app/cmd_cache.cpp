// cmd_cache.cpp: `warplab cache info|clear`: where the compile cache lives, how many
// entries and bytes it holds against its bound, and emptying it.
#include <iostream>

#include "app/cli.hpp"
#include "cu/attributes.hpp"
#include "rtc/cache.hpp"
#include "rtc/error.hpp"

namespace warplab::app {
namespace {

int run_cache(const std::string& action) {
  rtc::Cache cache(rtc::Cache::default_dir());
  if (!cache.warning().empty()) std::cerr << "warplab: " << cache.warning() << "\n";
  if (action == "clear") {
    rtc::Cache::Cleared c;
    try {
      c = cache.clear();
    } catch (const rtc::Error& e) {
      throw Failure(kBadInput, e.what());
    }
    std::cout << "removed " << c.removed << (c.removed == 1 ? " entry" : " entries") << " from "
              << cache.dir().string() << "\n";
    if (c.foreign) std::cout << "left " << c.foreign << " file(s) warplab did not write\n";
    if (c.failed)
      throw Failure(kBadInput, "could not remove " + std::to_string(c.failed) + " of " +
                                   std::to_string(c.failed + c.removed) + " entries from " +
                                   cache.dir().string() + " (is it read-only?)");
    return kOk;
  }
  const rtc::Cache::Info i = cache.info();
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
  auto* sub = app.add_subcommand("cache", "the on-disk compile cache: info | clear");
  sub->add_option("action", *action, "info (default) or clear")
      ->check(CLI::IsMember({"info", "clear"}));
  out.push_back({sub, [action] { return run_cache(*action); }});
}

}  // namespace warplab::app
