// occupancy.hpp: warplab's own occupancy calculator (how many blocks of a kernel fit on
// one SM, and which resource stops the next one), working from device attributes so it
// runs offline from a profile; plus the driver's answer for comparison on a GPU.
// docs/occupancy.md explains the model.
#pragma once
#include <climits>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cu/device.hpp"

namespace warplab::cu {

class Function;

// The device limits launch validation and occupancy need, read once from a snapshot so
// that checking a launch is integer comparisons, never a map lookup.
struct DeviceLimits {
  int cc_major = 0, cc_minor = 0;
  int warp_size = 32;
  int multiprocessor_count = 0;  // 0: unknown (an architecture profile): no grid-wide answer
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  long long max_grid_dim[3] = {0, 0, 0};
  long long max_shared_per_block = 0;        // without opt-in (48 KiB)
  long long max_shared_per_block_optin = 0;  // with cuFuncSetAttribute opt-in
  long long reserved_shared_per_block = 0;   // taken by the driver (1 KiB on sm_80+)
  long long max_shared_per_sm = 0;
  long long max_regs_per_block = 0;
  long long max_regs_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  bool cooperative_launch = false;
  bool cooperative_known = true;  // false: the profile does not know cooperative_launch
};

// Reads the attributes above from `d`. Throws cu::Error naming a missing attribute and
// the snapshot's source; the optional ones (opt-in, reserved shared, blocks per SM,
// cooperative_launch) fall back to the architecture's documented values, and an unknown
// SM count or cooperative_launch (an architecture profile) is recorded as unknown.
DeviceLimits device_limits(const DeviceSnapshot& d);

// What a kernel uses, from the loaded Function (cuFuncGetAttribute) or from an offline
// compile's ptxas report.
struct KernelLimits {
  int regs = 0;                   // registers per thread
  int static_shared = 0;          // bytes of __shared__ declared in the kernel
  int max_threads_per_block = 0;  // the kernel's own cap (launch bounds, registers); 0: unknown
  int barriers = 1;               // named barriers used (ptxas "used B barriers")
  // What the launch check needs beyond resources (the PTX's directives, the module's arch):
  unsigned cluster[3] = {0, 0, 0};  // the compile-time cluster (__cluster_dims__); zeros: none
  bool cluster_explicit = false;    // launched only as clusters (.explicitcluster)
  int max_cluster_blocks = 0;       // blocks per cluster at most (.maxclusterrank); 0: no cap
  int code_arch = 0;                // the SASS it holds: 90 for sm_90, 120 for sm_120; 0: unknown
  char code_arch_variant = 0;       // 'a' (sm_90a: that compute capability only), 'f' (family), 0
};

enum class Limiter : unsigned {
  none = 0,
  warps = 1,          // warp slots (max_threads_per_multiprocessor / warp_size)
  registers = 2,      // register file (max_registers_per_multiprocessor)
  shared_memory = 4,  // shared memory (the carveout of max_shared_memory_per_multiprocessor)
  blocks = 8,         // block slots (max_blocks_per_multiprocessor)
  barriers = 16,      // named-barrier slots (sm_90+)
};
// "warps", "registers", "shared memory", "blocks", "barriers", "none".
std::string_view limiter_name(Limiter l);

inline constexpr int kNoLimit = INT_MAX;  // a resource the kernel does not use

struct OccupancyResult {
  int blocks_per_sm = 0;
  int warps_per_block = 0;
  int active_warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double occupancy = 0.0;  // active / max warps, 0..1
  Limiter limiter =
      Limiter::none;           // the first binding limit (order: warps, registers, shared, blocks, barriers)
  unsigned limiting_mask = 0;  // every limit equal to blocks_per_sm (bits of Limiter)
  // Blocks per SM each resource alone would allow (kNoLimit when unused).
  int by_warps = 0, by_registers = 0, by_shared = 0, by_blocks = 0, by_barriers = kNoLimit;
  long long regs_per_block = 0;    // allocated: per warp in units of 256, times warps
  long long shared_per_block = 0;  // allocated: static + dynamic + reserved, rounded up
  long long shared_per_sm = 0;     // the carveout the calculation used
  std::string reason;              // when blocks_per_sm == 0: one sentence why
};

// Our calculator. `carveout_percent` -1 means the driver's default choice; 0..100 a
// preferred carveout (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT). Dynamic shared
// memory above 48 KiB is assumed opted in (as cu::launch does). Never throws.
OccupancyResult occupancy(const KernelLimits& k, int block_threads, long long dynamic_shared,
                          const DeviceLimits& d, int carveout_percent = -1);
OccupancyResult occupancy(const KernelLimits& k, int block_threads, long long dynamic_shared,
                          const DeviceSnapshot& d, int carveout_percent = -1);

// The driver's answer: cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags. Opts the
// kernel in first when `dynamic_shared` exceeds its current dynamic limit, as a launch
// would. Throws cu::Error on a driver error.
int driver_occupancy(const Function& f, int block_threads, std::size_t dynamic_shared,
                     unsigned flags = 0 /* CU_OCCUPANCY_DEFAULT */);

// One point of a calculator-vs-driver sweep.
struct OccupancyCase {
  std::string kernel;  // mangled name
  int block = 0, regs = 0, static_shared = 0, max_threads = 0;
  long long dynamic_shared = 0;
  int own = 0;     // our blocks per SM
  int driver = 0;  // the driver's; -1 when it returned an error
  std::string driver_error;
  bool agree() const { return own == driver || (driver < 0 && own == 0); }
};

// Every (kernel, block size, dynamic shared size) combination, ours and the driver's.
// A driver error counts as agreement only where ours says 0 blocks.
std::vector<OccupancyCase> occupancy_sweep_compare(std::span<const Function* const> kernels,
                                                   std::span<const int> block_sizes,
                                                   std::span<const long long> dynamic_shared,
                                                   const DeviceLimits& d);

}  // namespace warplab::cu
