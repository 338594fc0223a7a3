// cli/script_options.cpp: the options `run` and `watch` share, defined once: -p key=value
// (the script's parameters, read by require "warplab.params") and --no-check.
#include "app/cli/command.hpp"
#include "sys/shown.hpp"

namespace warplab::app {

void add_script_options(CLI::App* sub, std::vector<std::string>& params, Globals& g) {
  sub->add_option("-p,--param", params, "override a declared parameter: key=value")
      ->allow_extra_args(false)  // -p takes one key=value; later words are script arguments
      ->type_name("KEY=VALUE");
  sub->add_flag_callback(
      "--no-check", [&g] { g.opts.check = false; }, "skip launch validation (latency measurements)");
}

std::map<std::string, std::string> parse_params(const std::vector<std::string>& kv) {
  std::map<std::string, std::string> out;
  for (const auto& p : kv) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(ErrorKind::bad_input, "parameter '" + sys::shown(p) + "' must look like key=value");
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

}  // namespace warplab::app
