// cli/lua_state.hpp: the Lua state of `run` (and so of `watch`'s runs) and of the REPL's
// worker, made from the command line's options. The one header of cli/ that needs Lua
// (bind/state.hpp): command.hpp, and with it compile, attrs, cache and list, know nothing
// of Lua.
#pragma once
#include "app/cli/command.hpp"
#include "bind/state.hpp"
#include "lab/run.hpp"

namespace warplab::app {

// A Lua state on the device or profile select_target picks (falling back offline), with
// g.opts as its run options (lab::Run). `notes`, when given, decides whether the offline note
// is printed (the REPL says it once, not on every worker restart).
// The device is chosen on the script's first use of it when target_can_wait(g).
bind::StatePtr open_lua_state(const Globals& g, const Globals* notes = nullptr);
// The device chosen and its context made now, while nobody waits (watch's standby, the
// REPL's spare worker): cuInit, the attributes, the context. A failure is left for the
// script to meet where it would have anyway. Returns the state's run (lab/run.hpp), or
// null when that failed.
lab::Run* prepare_device(lua_State* L);
// True when choosing the device can wait for its first use: no --profile, device 0 and a
// driver that loads (whether it has a GPU is then cuInit's to say, on first use).
bool target_can_wait(const Globals& g);

}  // namespace warplab::app
