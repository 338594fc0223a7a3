// fault.hpp: attributing asynchronous GPU faults, the Lua side. Each launch is noted in
// the runtime's ring (lab/fault.hpp: kernel name and script line, copied into fixed
// arrays, no allocation on the launch path); when a later call reports a sticky fault
// (illegal address, trap, misaligned access, ...) the error names the launches that were
// in flight, not just the call that noticed it. Here: reading the caller's line, the
// watchdog's hook, the runtime's bookkeeping.
#pragma once
#include <lua.hpp>

#include <string>
#include <vector>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "lab/fault.hpp"

namespace warplab::bind {

using lab::FaultLog;
using lab::is_async_fault;
using lab::LaunchNote;

// Records a launch of `kernel` at the calling script line (level 1). Per launch: the
// caller's current line (lua_getinfo "l"); its chunk name only when the calling function
// differs from the last launch's.
void note_launch(lua_State* L, FaultLog& log, const std::string& kernel, const cu::LaunchConfig& c,
                 const cu::KernelLimits& k);
// Drops the last note (a launch the driver refused, so it cannot have faulted).
void forget_launch(lua_State* L);
// Runs fn (a synchronizing call); on success forgets the in-flight launches.
template <class F>
void checked_sync(lua_State* L, F&& fn);
void synced(lua_State* L);
// The message for error e, naming in-flight launches when e is an async fault.
std::string describe_error(lua_State* L, const cu::Error& e);

// The kernel watchdog (--timeout SECONDS): before a call that blocks on the GPU, waits
// for the work in flight by polling an event behind it. Past the deadline it raises
// "kernel K launched at FILE:LINE did not finish within T s: probable deadlock (...)",
// naming the grid against the co-resident capacity, and arms a hook that raises the
// same error again, so a pcall cannot swallow it: the context is stuck, the script must
// end (run exits 7). Without --timeout or with nothing in flight it returns at once.
void await_gpu(lua_State* L);

template <class F>
void checked_sync(lua_State* L, F&& fn) {
  await_gpu(L);
  fn();
  synced(L);
}

}  // namespace warplab::bind
