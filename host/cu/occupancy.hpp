// occupancy.hpp: warplab's own occupancy calculator (how many blocks of a kernel fit on
// one SM, and which resource stops the next one), working from the device's limits
// (cu/limits.hpp) so it runs offline from a profile; plus the driver's answer for
// comparison on a GPU. docs/occupancy.md explains the model.
#pragma once
#include <climits>
#include <cstddef>
#include <string>
#include <string_view>

#include "cu/device.hpp"
#include "cu/limits.hpp"

namespace warplab::cu {

class Function;

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

// The largest block (a multiple of the warp size, up to the device's max_threads_per_block)
// of which one fits on an SM: the register part of what the driver reports as a kernel's
// max_threads_per_block when `k` declares no cap of its own (max_threads_per_block 0).
// 0 when no block fits.
int max_block_threads(const KernelLimits& k, const DeviceLimits& d);

// The driver's answer: cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags. Opts the
// kernel in first when `dynamic_shared` exceeds its current dynamic limit, as a launch
// would. Throws cu::Error on a driver error.
int driver_occupancy(const Function& f, int block_threads, std::size_t dynamic_shared,
                     unsigned flags = 0 /* CU_OCCUPANCY_DEFAULT */);

}  // namespace warplab::cu
