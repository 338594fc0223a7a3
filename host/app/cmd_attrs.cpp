// cmd_attrs.cpp: placeholder
#include "app/cli.hpp"
namespace warplab::app {
void add_attrs_command(CLI::App& app, const Globals&, Commands& out) {
  auto* sub = app.add_subcommand("attrs", "device attributes");
  out.push_back({sub, [] { return 0; }});
}
}  // namespace warplab::app
