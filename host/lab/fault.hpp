// fault.hpp: attributing asynchronous GPU faults: the ring of recent launches (kernel name
// and script line, copied into fixed arrays: no allocation on the launch path), which error
// codes a kernel leaves behind, and the sentences that name the launches in flight (a
// fault) or the stuck one (the watchdog's deadlock verdict, sync.hpp).
#pragma once
#include <array>
#include <cstddef>
#include <cstring>
#include <string>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/limits.hpp"

namespace warplab::lab {

// The size of a chunk's short name ("script.lua"): Lua's LUA_IDSIZE (bind checks they agree).
inline constexpr std::size_t kSourceSize = 60;

// Where a launch was made, as the front end read it: the chunk's short name (NUL-terminated,
// at most kSourceSize bytes, kept by the caller) and its line; nullptr and 0: unknown.
struct Where {
  const char* source = nullptr;
  int line = 0;
};

struct LaunchNote {
  char kernel[64];           // the kernel's name; a graph's replay: where it was captured
  char source[kSourceSize];  // the chunk's short name ("script.lua")
  int line = 0;              // 0: unknown
  int stream = 0;            // the stream's number in the run (StreamBook), 0: the default stream
  unsigned nodes = 0;        // a graph's replay: its node count (0: a kernel launch)
  cu::LaunchConfig config;   // for the watchdog's co-residency verdict
  cu::KernelLimits limits;
  std::string where() const;  // "script.lua:12", built only when a fault is reported
  // "kernel 'k'", or "the graph of cuda.graph at x.lua:3 (5 nodes)" for a replay.
  std::string what() const;
};

struct FaultLog {
  std::array<LaunchNote, 8> ring{};
  unsigned head = 0;        // next slot
  unsigned since_sync = 0;  // launches since the last completed synchronization
  unsigned long long total =
      0;  // launches noted in this run: a front end tells which of its inputs made them

  // Takes the next slot for a launch of `kernel` (its name copied, cut to fit), with
  // config and limits; the caller fills source and line. Plain copies, no formatting:
  // this runs on every launch (inline).
  LaunchNote& note(const std::string& kernel, const cu::LaunchConfig& c, const cu::KernelLimits& k) {
    LaunchNote& n = ring[head];
    head = (head + 1) % ring.size();
    ++since_sync;
    ++total;
    const std::size_t len = kernel.size() < sizeof n.kernel ? kernel.size() : sizeof n.kernel - 1;
    std::memcpy(n.kernel, kernel.data(), len);
    n.kernel[len] = '\0';
    n.line = 0;
    n.stream = 0;
    n.nodes = 0;
    n.config = c;
    n.limits = k;
    return n;
  }
  // Drops the last note (a launch the driver refused, so it cannot have faulted).
  void forget() {
    if (since_sync == 0) return;
    head = (head + static_cast<unsigned>(ring.size()) - 1) % ring.size();
    --since_sync;
    --total;
  }
  // The note `back` launches before the next slot: 1 is the last launch.
  const LaunchNote& recent(unsigned back = 1) const {
    return ring[(head + ring.size() - back) % ring.size()];
  }
};

// True for the error codes a kernel leaves behind (sticky context errors).
bool is_async_fault(CUresult code);

// The sentence for a fault `code` noticed by `call` with log's launches in flight
// (since_sync > 0): "kernel 'K' launched at FILE:LINE on stream 2 faulted: ... The context
// is now unusable: restart the script", naming the earlier launches when there were several.
std::string fault_text(const FaultLog& log, CUresult code, const std::string& call);

// Why launch n may not finish: its grid against the blocks device d can hold at once.
std::string deadlock_verdict(const LaunchNote& n, const cu::DeviceLimits& d);
// The watchdog's sentence: "kernel 'K' launched at FILE:LINE on stream 2 did not finish
// within T s: ..." (for a graph's replay: a kernel in it did not finish).
std::string timeout_text(const LaunchNote& n, double seconds, const cu::DeviceLimits& d);

}  // namespace warplab::lab
