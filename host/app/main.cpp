// main.cpp: the warplab program. Parses the command line (CLI11), dispatches to one
// subcommand, and is the only place that turns errors into exit codes.
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace {

std::string version_text() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string out = std::string("warplab ") + WARPLAB_VERSION + "\nNVRTC " +
                    std::to_string(major) + "." + std::to_string(minor);
  std::string why;
  if (warplab::cu::driver_available(&why))
    out += "\nCUDA driver " + warplab::cu::version_string(warplab::cu::driver_version());
  else
    out += "\nCUDA driver: none (" + why + ")";
  return out;
}


}  // namespace

int main(int argc, char** argv) {
  using namespace warplab::app;
  CLI::App app{"warplab: a CUDA playground (driver API, NVRTC, Lua 5.4)", "warplab"};
  app.set_version_flag("--version", version_text);
  app.require_subcommand(1);
  Globals g;
  g.argv.assign(argv, argv + argc);
  if (const char* p = std::getenv("WARPLAB_PROFILE")) g.profile = p;
  app.add_option("--device", g.device, "CUDA device index")->check(CLI::NonNegativeNumber);
  app.add_option("--profile", g.profile,
                 "use a captured device profile (name or .json) instead of a GPU");
  app.add_option("--timeout", g.timeout, "kernel watchdog, seconds (0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--sync", g.sync, "synchronize after every launch (debugging)");
  app.add_flag("--no-color", g.no_color, "no ANSI colours");
  app.add_flag("-q,--quiet", g.quiet, "print less");
  app.add_flag("--no-cache", g.no_cache, "neither read nor write the compile cache");
  if (std::getenv("NO_COLOR")) g.no_color = true;

  Commands commands;
  add_attrs_command(app, g, commands);
  add_compile_command(app, g, commands);
  add_run_command(app, g, commands);
  add_cache_command(app, g, commands);
  add_repl_command(app, g, commands);
  add_watch_command(app, g, commands);
  add_list_command(app, g, commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  }
  try {
    for (const Command& c : commands)
      if (c.sub->parsed()) return c.run();
    return kUsage;
  } catch (const Failure& e) {
    std::cerr << "warplab: " << e.what() << "\n";
    return e.code;
  } catch (const warplab::cu::Error& e) {
    std::cerr << "warplab: " << e.what() << "\n";
    return exit_code_for(e);
  } catch (const std::exception& e) {
    std::cerr << "warplab: internal error: " << e.what() << "\n";
    return kInternal;
  }
}
