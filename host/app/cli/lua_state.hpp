// cli/lua_state.hpp: the Lua state of `run` (and so of `watch`'s runs) and of the REPL's
// worker, made from the command line's options. The one header of cli/ that needs Lua
// (bind/state.hpp): command.hpp, and with it compile, attrs, cache and list, know nothing
// of Lua.
#pragma once
#include "app/cli/command.hpp"
#include "bind/state.hpp"

namespace warplab::app {

// A Lua state on the device or profile select_target picks (falling back offline), with
// g.opts as its runtime options. `notes`, when given, decides whether the offline note
// is printed (the REPL says it once, not on every worker restart).
// The device is chosen on the script's first use of it when target_can_wait(g).
bind::StatePtr open_lua_state(const Globals& g, const Globals* notes = nullptr);
// True when choosing the device can wait for its first use: no --profile, device 0 and a
// driver that loads (whether it has a GPU is then cuInit's to say, on first use).
bool target_can_wait(const Globals& g);

}  // namespace warplab::app
