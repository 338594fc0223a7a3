// launch.hpp: launch configurations, their validation against the device's and the
// kernel's limits (one sentence naming the limit, its attribute and its value), and the
// launch itself. The launch path allocates nothing and queries nothing: limits come
// cached (DeviceLimits, Function::limits()). Depends on cu/occupancy.hpp.
#pragma once
#include <cuda.h>

#include "cu/occupancy.hpp"

namespace warplab::cu {

class Function;

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct LaunchConfig {
  Dim3 grid, block;
  unsigned shared_bytes = 0;  // dynamic shared memory per block
  CUstream stream = nullptr;  // nullptr: the legacy default stream
  bool cooperative = false;   // cuLaunchCooperativeKernel (grid-wide sync allowed)
};

// Throws cu::Error (code CUDA_SUCCESS) with one sentence when `c` breaks a limit, e.g.
// "block 1024x2x1 = 2048 threads exceeds max_threads_per_block = 1024". Checks, in order:
// zero dimensions, each block dimension, threads per block (device, then the kernel's
// own max_threads_per_block), registers per block, each grid dimension, static + dynamic
// shared memory (opt-in limit), and for cooperative launches the device's support and
// the co-resident block count from our occupancy calculator.
void validate(const LaunchConfig& c, const KernelLimits& k, const DeviceLimits& d);
// Convenience: reads the limits from a snapshot first (slower: use DeviceLimits in loops).
void validate(const LaunchConfig& c, const KernelLimits& k, const DeviceSnapshot& d);

// Launches `f` with `args` (one pointer per parameter, as cuLaunchKernel takes them).
// Dynamic shared memory above the kernel's current limit is opted in first (once per new
// maximum). Does not validate; driver errors throw cu::Error naming the kernel.
void launch(const Function& f, const LaunchConfig& c, void** args);
// validate(c, f.limits(), d) then launch(f, c, args).
void launch_checked(const Function& f, const LaunchConfig& c, const DeviceLimits& d, void** args);

}  // namespace warplab::cu
