// launch.hpp: launch configurations, their validation against the device's and the
// kernel's limits (one sentence naming the limit, its attribute and its value), and the
// launch itself. The launch path allocates nothing and queries nothing: limits come
// cached (DeviceLimits, Function::limits()); only a cluster launch asks the driver once
// more (cuOccupancyMaxActiveClusters, in validate_clusters). Depends on cu/occupancy.hpp.
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
  Dim3 cluster{0, 0, 0};      // blocks per thread-block cluster; all 0: no cluster
  bool clustered() const noexcept { return (cluster.x | cluster.y | cluster.z) != 0; }
};

// The largest cluster warplab launches: the portable limit. 16 blocks would need the
// non-portable opt-in (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), not made.
inline constexpr unsigned kMaxClusterBlocks = 8;

// Throws cu::Error (code CUDA_SUCCESS) with one sentence when `c` breaks a limit, e.g.
// "block 1024x2x1 = 2048 threads exceeds max_threads_per_block = 1024". Checks, in order:
// zero dimensions, each block dimension, threads per block (device, then the kernel's
// own max_threads_per_block), registers per block, each grid dimension, static + dynamic
// shared memory (opt-in limit); for cluster launches a zero dimension, the device's
// support (compute capability 9.0+), the portable size (8 blocks), the grid a multiple of
// the cluster in each dimension, and no cooperative flag with it; for cooperative
// launches the device's support and the co-resident block count from our occupancy
// calculator. Works offline: nothing here asks the driver.
void validate(const LaunchConfig& c, const KernelLimits& k, const DeviceLimits& d);
// Convenience: reads the limits from a snapshot first (slower: use DeviceLimits in loops).
void validate(const LaunchConfig& c, const KernelLimits& k, const DeviceSnapshot& d);

// The driver's answer for a cluster launch (`c.clustered()`): how many clusters of c's
// shape can be resident at once (cuOccupancyMaxActiveClusters). 0 means the cluster
// cannot be scheduled at all. Opts in dynamic shared memory first, as launch() would.
int max_active_clusters(const Function& f, const LaunchConfig& c);
// Throws cu::Error (CUDA_SUCCESS) with one sentence when max_active_clusters is 0; a
// no-op for a launch without a cluster. Needs a GPU; call after validate().
void validate_clusters(const Function& f, const LaunchConfig& c);

// Launches `f` with `args` (one pointer per parameter, as cuLaunchKernel takes them).
// Dynamic shared memory above the kernel's current limit is opted in first (once per new
// maximum). A cluster launch goes through cuLaunchKernelEx with the cluster dimension
// attribute. Does not validate; driver errors throw cu::Error naming the kernel.
void launch(const Function& f, const LaunchConfig& c, void** args);
// validate(c, f.limits(), d) then launch(f, c, args).
void launch_checked(const Function& f, const LaunchConfig& c, const DeviceLimits& d, void** args);

}  // namespace warplab::cu
