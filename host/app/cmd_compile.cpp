// cmd_compile.cpp: placeholder
#include "app/cli.hpp"
namespace warplab::app {
void add_compile_command(CLI::App& app, const Globals&, Commands& out) {
  auto* sub = app.add_subcommand("compile", "NVRTC only");
  out.push_back({sub, [] { return 0; }});
}
}  // namespace warplab::app
