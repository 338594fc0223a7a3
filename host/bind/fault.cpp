// fault.cpp: the launch ring and the wording of asynchronous-fault errors.
#include "bind/fault.hpp"

#include <cstdio>
#include <cstring>

#include "bind/runtime.hpp"

namespace warplab::bind {

void note_launch(lua_State* L, const char* kernel) {
  FaultLog& log = runtime(L).faults;
  LaunchNote& n = log.ring[log.head];
  log.head = (log.head + 1) % log.ring.size();
  ++log.since_sync;
  // Plain copies, no formatting: this runs on every launch.
  const std::size_t len = strnlen(kernel, sizeof n.kernel - 1);
  std::memcpy(n.kernel, kernel, len);
  n.kernel[len] = '\0';
  lua_Debug ar;
  n.line = 0;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
    std::memcpy(n.source, ar.short_src, sizeof n.source);  // both LUA_IDSIZE, NUL-terminated
    n.line = ar.currentline;
  }
}

std::string LaunchNote::where() const {
  return line > 0 ? std::string(source) + ":" + std::to_string(line) : "?";
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
    case CUDA_ERROR_LAUNCH_TIMEOUT: return true;
    default: return false;
  }
}

std::string describe_error(lua_State* L, const cu::Error& e) {
  std::string msg = e.what();
  if (!is_async_fault(e.code())) return msg;
  const FaultLog& log = runtime(L).faults;
  if (log.since_sync == 0) return msg;
  const unsigned n = std::min<unsigned>(log.since_sync, log.ring.size());
  const LaunchNote& last = log.ring[(log.head + log.ring.size() - 1) % log.ring.size()];
  std::string out = "kernel '" + std::string(last.kernel) + "' launched at " + last.where() +
                    " faulted: " + cu::error_text(e.code());
  if (log.since_sync > 1) {
    out += " (one of " + std::to_string(log.since_sync) +
           " launches since the last synchronization; earlier:";
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
