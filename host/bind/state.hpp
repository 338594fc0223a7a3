// state.hpp: a Lua 5.4 state with the standard libraries, the `cuda` module, the
// warplab Lua library on package.path, and script parameters. Used by `run`, `watch`
// and `repl`. Depends on bind/runtime.hpp.
#pragma once
#include <lua.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bind/runtime.hpp"

namespace warplab::bind {

struct StateDeleter {
  void operator()(lua_State* L) const { lua_close(L); }
};
using StatePtr = std::unique_ptr<lua_State, StateDeleter>;

// Opens a state; `target` is the device or profile to expose as cuda.device().
StatePtr open_state(const lab::Options& opts, cu::DeviceSnapshot target, bool offline,
                    std::string offline_reason);
// The same with the target chosen on the state's first use of it (runtime.hpp).
StatePtr open_state(const lab::Options& opts, TargetChooser choose);

// Script parameters from `-p key=value` (read by require "warplab.params").
void set_params(lua_State* L, const std::map<std::string, std::string>& params);

struct RunResult {
  bool ok = true;
  std::string error;       // "script.lua:12: message" plus a short traceback
  bool timed_out = false;  // the kernel watchdog fired: the GPU context is stuck
  bool bad_input = false;  // a -p value was wrong (warplab.params): exit 4, no traceback
};
// Runs a script file with `args` in the global `arg` table (arg[0] = path).
RunResult run_file(lua_State* L, const std::string& path, const std::vector<std::string>& args);

// Registers the `cuda` global (bind_*.cpp provide the pieces).
void open_cuda(lua_State* L);

// True once this state's GPU context is unusable: a sticky fault was reported or the
// watchdog fired (a kernel still spins). Only a new process gets a new context.
bool context_lost(lua_State* L);

}  // namespace warplab::bind
