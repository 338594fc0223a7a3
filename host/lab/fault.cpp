// fault.cpp: the launch ring's places, which error codes a kernel leaves behind, and the
// wording of asynchronous-fault and deadlock errors.
#include "lab/fault.hpp"

#include <algorithm>
#include <cstdio>

#include "cu/occupancy.hpp"

namespace warplab::lab {

std::string LaunchNote::where() const {
  return line > 0 ? std::string(source) + ":" + std::to_string(line) : "?";
}

std::string LaunchNote::what() const {
  if (nodes == 0) return "kernel '" + std::string(kernel) + "'";
  return "the graph of " + std::string(kernel) + " (" + std::to_string(nodes) +
         (nodes == 1 ? " node)" : " nodes)");
}

namespace {

std::string on_stream(const LaunchNote& n) {
  return n.stream > 0 ? " on stream " + std::to_string(n.stream) : "";
}

}  // namespace

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

std::string fault_text(const FaultLog& log, CUresult code, const std::string& call) {
  const unsigned n = std::min<unsigned>(log.since_sync, log.ring.size());
  const LaunchNote& last = log.recent();
  std::string out =
      last.what() + " launched at " + last.where() + on_stream(last) + " faulted: " + cu::error_text(code);
  if (log.since_sync > 1) {
    out +=
        " (one of " + std::to_string(log.since_sync) + " launches since the last synchronization; earlier:";
    for (unsigned i = 2; i <= n; ++i) {
      const LaunchNote& k = log.recent(i);
      out += std::string(" ") + (k.nodes ? "graph" : k.kernel) + "@" + k.where();
    }
    out += "; run with --sync to pin it down)";
  }
  out += "; noticed by " + call + ". The context is now unusable: restart the script";
  return out;
}

std::string deadlock_verdict(const LaunchNote& n, const cu::DeviceLimits& d) {
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

std::string timeout_text(const LaunchNote& n, double seconds, const cu::DeviceLimits& d) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", seconds);
  const std::string head =
      n.what() + " launched at " + n.where() + on_stream(n) + " did not finish within " + secs + " s: ";
  if (n.nodes)
    return head +
           "a kernel in it deadlocked or runs very long (launch its work outside a graph to see which)";
  return head + deadlock_verdict(n, d);
}

}  // namespace warplab::lab
