// fault.cpp: the launch ring and the wording of asynchronous-fault errors.
#include "bind/fault.hpp"

#include <cstdio>
#include <cstring>

#include "bind/runtime.hpp"
#include "cu/stream.hpp"

#include <chrono>
#include <thread>

namespace warplab::bind {

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

}  // namespace

void note_launch(lua_State* L, FaultLog& log, const std::string& kernel, const cu::LaunchConfig& c,
                 const cu::KernelLimits& k) {
  LaunchNote& n = log.ring[log.head];
  log.head = (log.head + 1) % log.ring.size();
  ++log.since_sync;
  // Plain copies, no formatting: this runs on every launch.
  const std::size_t len = kernel.size() < sizeof n.kernel ? kernel.size() : sizeof n.kernel - 1;
  std::memcpy(n.kernel, kernel.data(), len);
  n.kernel[len] = '\0';
  n.line = 0;
  lua_Debug ar;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "fl", &ar)) {  // +1 function
    if (ar.currentline > 0) {                                  // a Lua function (a C caller has no line)
      if (lua_topointer(L, -1) != log.source_fn) remember_source(L, log);
      std::memcpy(n.source, log.source, sizeof n.source);
      n.line = ar.currentline;
    }
    lua_pop(L, 1);  // -1
  }
  n.config = c;
  n.limits = k;
}

std::string LaunchNote::where() const {
  return line > 0 ? std::string(source) + ":" + std::to_string(line) : "?";
}

namespace {

// Raises the watchdog's message on every instruction count tick, so an enclosing pcall
// cannot swallow it for long: as redis re-arms its script-kill hook.
void timeout_hook(lua_State* L, lua_Debug*) { luaL_error(L, "%s", runtime(L).timeout_message.c_str()); }

std::string deadlock_verdict(const Runtime& rt, const LaunchNote& n) {
  const cu::DeviceLimits& d = *rt.limits;
  const unsigned long long grid = 1ull * n.config.grid.x * n.config.grid.y * n.config.grid.z;
  const int block = static_cast<int>(n.config.block.x * n.config.block.y * n.config.block.z);
  const cu::OccupancyResult o = cu::occupancy(n.limits, block, n.config.shared_bytes, d);
  const unsigned long long resident = 1ull * o.blocks_per_sm * static_cast<unsigned>(d.multiprocessor_count);
  if (grid > resident)
    return "probable inter-block deadlock: grid " + std::to_string(grid) + " blocks > " +
           std::to_string(resident) + " co-resident (" + std::to_string(o.blocks_per_sm) + " per SM x " +
           std::to_string(d.multiprocessor_count) +
           " SMs), so blocks waiting for unstarted blocks can never be released";
  return "probable deadlock or a very long kernel (grid " + std::to_string(grid) +
         " blocks, all co-resident: " + std::to_string(resident) + " fit)";
}

}  // namespace

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
      const LaunchNote& last =
          rt.faults.ring[(rt.faults.head + rt.faults.ring.size() - 1) % rt.faults.ring.size()];
      char secs[32];
      std::snprintf(secs, sizeof secs, "%g", rt.opts.timeout);
      if (!rt.limits) rt.limits = cu::device_limits(rt.target);
      rt.timeout_message = "kernel '" + std::string(last.kernel) + "' launched at " + last.where() +
                           " did not finish within " + secs + " s: " + deadlock_verdict(rt, last);
      rt.timed_out = true;
      lua_sethook(L, timeout_hook, LUA_MASKCOUNT, 1);
      luaL_error(L, "%s", rt.timeout_message.c_str());
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
  rt.faults.since_sync = 0;  // everything launched so far has finished
}

void forget_launch(lua_State* L) {
  FaultLog& log = runtime(L).faults;
  if (log.since_sync == 0) return;
  log.head = (log.head + static_cast<unsigned>(log.ring.size()) - 1) % log.ring.size();
  --log.since_sync;
}

void synced(lua_State* L) { runtime(L).faults.since_sync = 0; }

bool is_async_fault(CUresult c) {
  switch (c) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return true;
    default:
      return false;
  }
}

std::string describe_error(lua_State* L, const cu::Error& e) {
  std::string msg = e.what();
  if (!is_async_fault(e.code())) return msg;
  runtime(L).context_lost = true;  // every later call on this context fails the same way
  const FaultLog& log = runtime(L).faults;
  if (log.since_sync == 0) return msg;
  const unsigned n = std::min<unsigned>(log.since_sync, log.ring.size());
  const LaunchNote& last = log.ring[(log.head + log.ring.size() - 1) % log.ring.size()];
  std::string out = "kernel '" + std::string(last.kernel) + "' launched at " + last.where() +
                    " faulted: " + cu::error_text(e.code());
  if (log.since_sync > 1) {
    out +=
        " (one of " + std::to_string(log.since_sync) + " launches since the last synchronization; earlier:";
    for (unsigned i = 2; i <= n; ++i) {
      const LaunchNote& k = log.ring[(log.head + log.ring.size() - i) % log.ring.size()];
      out += std::string(" ") + k.kernel + "@" + k.where();
    }
    out += "; run with --sync to pin it down)";
  }
  out += "; noticed by " + e.call() + ". The context is now unusable: restart the script";
  return out;
}

}  // namespace warplab::bind
