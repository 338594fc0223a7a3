// fault.cpp: the Lua side of the launch ring (the caller's script line) and of the
// watchdog; the ring itself and the sentences are lab's (lab/fault.hpp).
#include "bind/fault.hpp"

#include <chrono>
#include <cstring>
#include <thread>

#include "bind/runtime.hpp"
#include "cu/stream.hpp"

namespace warplab::bind {

static_assert(sizeof(LaunchNote::source) == LUA_IDSIZE, "lab::kSourceSize must be LUA_IDSIZE");

namespace {

// The registry slot that keeps the last launching function alive (FaultLog::source_fn).
const char kSourceFnKey = 0;

// The function on top of the stack (left there) launched: remember its chunk name.
[[gnu::noinline]] void remember_source(lua_State* L, FaultLog& log) {
  lua_Debug ar;
  lua_pushvalue(L, -1);                                      // +1 function
  lua_getinfo(L, ">S", &ar);                                 // -1
  std::memcpy(log.source, ar.short_src, sizeof log.source);  // both LUA_IDSIZE, NUL-terminated
  lua_pushvalue(L, -1);                                      // +1 function
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kSourceFnKey);          // -1
  log.source_fn = lua_topointer(L, -1);
}

// Raises the watchdog's message on every instruction count tick, so an enclosing pcall
// cannot swallow it for long: as redis re-arms its script-kill hook.
void timeout_hook(lua_State* L, lua_Debug*) { luaL_error(L, "%s", runtime(L).timeout_message.c_str()); }

}  // namespace

void note_launch(lua_State* L, FaultLog& log, const std::string& kernel, const cu::LaunchConfig& c,
                 const cu::KernelLimits& k) {
  LaunchNote& n = log.note(kernel, c, k);  // plain copies, no formatting: every launch
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "fl", &ar)) {  // +1 function
    if (ar.currentline > 0) {                                  // a Lua function (a C caller has no line)
      if (lua_topointer(L, -1) != log.source_fn) remember_source(L, log);
      std::memcpy(n.source, log.source, sizeof n.source);
      n.line = ar.currentline;
    }
    lua_pop(L, 1);  // -1
  }
}

void await_gpu(lua_State* L) {
  Runtime& rt = runtime(L);
  if (rt.opts.timeout <= 0 || rt.faults.since_sync == 0 || !rt.context) return;
  if (!rt.watch_event) rt.watch_event = std::make_unique<cu::Event>(rt.context);
  rt.watch_event->record(nullptr);  // behind everything on the (blocking) default stream
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(rt.opts.timeout);
  auto pause = std::chrono::microseconds(20);
  while (!rt.watch_event->query()) {
    if (std::chrono::steady_clock::now() > deadline) {
      if (!rt.limits) rt.limits = cu::device_limits(rt.target);
      rt.timeout_message = lab::timeout_text(rt.faults.recent(), rt.opts.timeout, *rt.limits);
      rt.timed_out = true;
      lua_sethook(L, timeout_hook, LUA_MASKCOUNT, 1);
      luaL_error(L, "%s", rt.timeout_message.c_str());
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
  rt.faults.since_sync = 0;  // everything launched so far has finished
}

void forget_launch(lua_State* L) { runtime(L).faults.forget(); }

void synced(lua_State* L) { runtime(L).faults.since_sync = 0; }

std::string describe_error(lua_State* L, const cu::Error& e) {
  if (!is_async_fault(e.code())) return e.what();
  runtime(L).context_lost = true;  // every later call on this context fails the same way
  const FaultLog& log = runtime(L).faults;
  if (log.since_sync == 0) return e.what();
  return lab::fault_text(log, e.code(), e.call());
}

}  // namespace warplab::bind
