// cli/lua_state.hpp: the Lua state of `run` (and so of `watch`'s runs) and of the REPL's
// worker, made from the command line's options. The one header of cli/ that needs Lua
// (bind/state.hpp): command.hpp, and with it compile, attrs, cache and list, know nothing
// of Lua.
#pragma once
#include "app/cli/command.hpp"
#include "bind/state.hpp"

namespace warplab::app {

// A Lua state on the device or profile select_target picks (falling back offline), with
// g.opts as its run options (lab::Run). `notes`, when given, decides whether the offline note
// is printed (the REPL says it once, not on every worker restart).
bind::StatePtr open_lua_state(const Globals& g, const Globals* notes = nullptr);

}  // namespace warplab::app
