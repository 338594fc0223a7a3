// launch.hpp: launch configurations, their check against the device's and the kernel's
// limits (a Violation: which limit, and one sentence naming its attribute and value), and
// the launch itself. The launch path allocates nothing and queries nothing: limits come
// cached (DeviceLimits, Function::limits()); only a cluster launch asks the driver once
// more (cuOccupancyMaxActiveClusters).
#pragma once
#include <cuda.h>

#include <optional>
#include <string>

#include "cu/limits.hpp"

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

// Blocks per cluster: up to 8 anywhere (the portable size); up to 16 with the non-portable
// opt-in (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), which warplab makes for a
// launch that asks for more, where the device's cuOccupancyMaxPotentialClusterSize allows
// it. Offline, 16 is the most compute capability 9.0 and later can take.
inline constexpr unsigned kPortableClusterBlocks = 8;
inline constexpr unsigned kMaxClusterBlocks = 16;

// The limits check() applies, in the order they are checked.
enum class Limit {
  architecture,              // the kernel's code is for another compute capability
  block_zero,                // a block dimension is 0
  grid_zero,                 // a grid dimension is 0
  block_dim,                 // max_block_dim_{x,y,z}
  threads_per_block,         // the device's max_threads_per_block
  kernel_threads_per_block,  // the kernel's max_threads_per_block (launch bounds, registers)
  registers_per_block,       // max_registers_per_block
  grid_dim,                  // max_grid_dim_{x,y,z}
  shared_memory,             // max_shared_memory_per_block(_optin)
  cluster_zero,              // a cluster dimension is 0
  cluster_conflict,          // cluster = differs from the kernel's compile-time cluster
  cluster_required,          // a kernel declared __cluster_dims__() launched without cluster =
  cluster_support,           // compute capability 9.0+
  cluster_size,              // more blocks than a cluster may hold (8 portable, 16, the driver's)
  cluster_rank,              // more blocks than the kernel's own cap (.maxclusterrank)
  cluster_grid,              // the grid a multiple of the cluster
  cluster_cooperative,       // a cluster with cooperative = true
  cooperative_support,       // cooperative_launch
  cooperative_residency,     // every block of a cooperative grid resident at once
  cluster_schedule,          // cuOccupancyMaxActiveClusters = 0 (asked of the driver, on a GPU)
};

// A broken limit: which one, and the sentence that says so.
struct Violation {
  Limit limit;
  std::string sentence;  // "block 1024x2x1 = 2048 threads exceeds max_threads_per_block = 1024"
};

// The first limit `c` breaks, or nullopt; never throws for a broken limit. Checks, in order:
// the kernel's code against the device's compute capability (check_code), zero dimensions,
// each block dimension, threads per block (device, then the kernel's own
// max_threads_per_block), registers per block, each grid dimension, static + dynamic shared
// memory (opt-in limit); for a launch in clusters (cluster = given, or the kernel's
// compile-time __cluster_dims__) a zero dimension, cluster = against the compile-time
// cluster, a __cluster_dims__() kernel launched without one, the device's support (compute
// capability 9.0+), the size (offline: kMaxClusterBlocks), the kernel's .maxclusterrank,
// the grid a multiple of the cluster in each dimension, and no cooperative flag with it;
// for cooperative launches the device's support and the co-resident block count from our
// occupancy calculator. Works offline: nothing above asks the driver. Given the kernel's
// function `driver` (a GPU), a cluster launch that passes them all is also asked of the
// driver: above 8 blocks the largest cluster it can form (cuOccupancyMaxPotentialClusterSize,
// opted in), then Limit::cluster_schedule when max_active_clusters is 0. A driver that
// refuses the cluster's size is a broken limit too; any other failing driver call throws.
std::optional<Violation> check(const LaunchConfig& c, const KernelLimits& k, const DeviceLimits& d,
                               const Function* driver = nullptr);

// Whether code for the kernel's architecture (k.code_arch) runs on a device of d's compute
// capability: SASS for sm_XY runs on X.Y through X.9 (a family-specific sm_XYf too; an
// arch-specific sm_XYa on X.Y only); warplab loads SASS (Module::load_cubin), never PTX to
// be compiled again. nullopt when it runs or the architecture is unknown.
std::optional<Violation> check_code(const KernelLimits& k, const DeviceLimits& d);

// The cluster a launch of a kernel with limits k and configuration c runs in: c.cluster when
// given, else the kernel's compile-time cluster, else none (all 0).
Dim3 cluster_of(const LaunchConfig& c, const KernelLimits& k);

// The driver's answer for a cluster launch (`c.clustered()`): how many clusters of c's
// shape can be resident at once (cuOccupancyMaxActiveClusters). 0 means the cluster
// cannot be scheduled at all. Opts in dynamic shared memory and, above 8 blocks, the
// non-portable cluster size first, as launch() would.
int max_active_clusters(const Function& f, const LaunchConfig& c);
// The largest cluster the driver would form for f with c's block and shared memory, with
// the non-portable opt-in made (cuOccupancyMaxPotentialClusterSize); 0 when this driver
// cannot say (before CUDA 12.0).
int max_cluster_blocks(const Function& f, const LaunchConfig& c);

// Launches `f` with `args` (one pointer per parameter, as cuLaunchKernel takes them).
// Dynamic shared memory above the kernel's current limit is opted in first (once per new
// maximum), and the non-portable cluster size for a cluster above 8 blocks. A cluster launch
// goes through cuLaunchKernelEx with the cluster dimension attribute; a kernel with a
// compile-time cluster launched without cluster = goes through cuLaunchKernel, the driver
// applying its cluster. Does not check (call check() first); driver errors throw cu::Error naming the kernel.
void launch(const Function& f, const LaunchConfig& c, void** args);

}  // namespace warplab::cu
