// state.hpp: a Lua 5.4 state with the standard libraries, the `cuda` module, the
// warplab Lua library on package.path, and script parameters: what the program (host/app:
// `run`, `watch`, `repl`) uses of the bindings.
#pragma once
#include <lua.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cu/device.hpp"
#include "cu/trace.hpp"
#include "lab/options.hpp"
#include "lab/run.hpp"
#include "sys/error.hpp"

namespace warplab::bind {

// Closes a state (lua_close), its record last: the record's finalizer destroys it only
// then, never when a script reaches it by another way (debug.getregistry).
void close_state(lua_State* L) noexcept;
struct StateDeleter {
  void operator()(lua_State* L) const { close_state(L); }
};
using StatePtr = std::unique_ptr<lua_State, StateDeleter>;

// Opens a state; `target` is the device or profile to expose as cuda.device().
StatePtr open_state(const lab::Options& opts, cu::DeviceSnapshot target, bool offline,
                    std::string offline_reason);
// The same with the target chosen by `choose` on the state's first use of it (lab::Run):
// a script that never touches the GPU never starts the driver.
StatePtr open_state(const lab::Options& opts, lab::TargetChooser choose);

// Script parameters from `-p key=value` (read by require "warplab.params").
void set_params(lua_State* L, const std::map<std::string, std::string>& params);

// How a script ended, and the kind of the error that ended it: the kind noted beside the
// escaping value when warplab raised it (guard.hpp, warplab.raise, a failed compile's
// diagnostics: the value itself, or behind one leading "chunk:line: " as error() and
// assert() add it), timeout once the watchdog fired, else failed (the script's own error).
// The message handler leaves the traceback out for a -p value the script's params refuses
// (parameter), a call that needs a GPU on a run without one (no_gpu; a script's pcall
// still catches it as a string), a value the profile does not know (not_in_profile) and a
// failed compile's diagnostics (compile: `error` is them, then "warplab: " and where the
// script stopped with the summary, "script.lua:3: k.cu did not compile ...").
struct RunResult {
  bool ok = true;
  std::string error;  // "script.lua:12: message" plus a short traceback
  ErrorKind kind = ErrorKind::failed;
  // A call that needs a GPU (kind no_gpu): the line of the script's own top level that was
  // running, where its GPU part starts (0: not known).
  int top_line = 0;
};
// Runs a script file with `args` in the global `arg` table (arg[0] = path). More arguments
// than a Lua chunk takes throw Error (bad_input).
RunResult run_file(lua_State* L, const std::string& path, const std::vector<std::string>& args);

// True once this state's GPU context is unusable: a sticky fault was reported or the
// watchdog fired (a kernel still spins). Only a new process gets a new context.
bool context_lost(lua_State* L);

// Stopping Lua code wherever it runs. A count hook is per thread in Lua 5.4, so a hook set
// on the main thread never fires inside a coroutine: open_state wraps coroutine.resume and
// the functions of coroutine.wrap so the coroutines being resumed are known, and
// hook_running sets `hook` (a count hook of one instruction) on `main` (the state's main
// thread) and on every one of them. It stays set until cleared, so a pcall that catches
// its error is hooked again at the next instruction, up to the top. Used by the REPL's
// Ctrl-C from a signal handler (async-signal-safe: lua_sethook and plain reads) and by the
// watchdog's re-raise.
void hook_running(lua_State* main, lua_Hook hook);

// The launches this state made (lab::FaultLog): how many in all, and how many of the last
// of them the GPU may not have finished (made since the last completed synchronization).
// The REPL tells by them which of its inputs launched a kernel that faulted.
struct Launches {
  unsigned long long total = 0, unfinished = 0;
};
Launches launches(lua_State* L);

// This state's run (lab/run.hpp): what `run --counters` counts on, and what the program
// makes ready before a script starts (watch's standby, the REPL's spare worker: the device
// chosen, its context, modules).
lab::Run& run_of(lua_State* L);

}  // namespace warplab::bind
