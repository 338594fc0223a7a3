// clocks.cu: the handbook's reportClocks experiment: when did each thread finish?
// Shows:    threads run in warps: every lane of a warp reads the SM's cycle counter in
//           the same instruction, so a warp's lanes report one completion value while
//           different warps report different ones; a 14-wide block leaves lanes idle.
// Versions: completion_clocks (one clock64() per thread at its end, plus where it ran).
// Launch:   any 1-3-D grid and block; clocks holds one u64 per thread, where holds
//           CLOCK_FIELDS u32 per thread (fields below), threads numbered row-major.
// Expect:   one value per warp (spread 0 cycles); values differ between warps; values
//           compare only within one SM (%smid): each SM has its own counter.
// Used by:  examples/warps/clocks.lua
#include <warplab/ids.cuh>

// Per-thread record in `where` (u32 each). Keep in sync with examples/warps/clocks.lua.
enum ClockField : unsigned {
  kClockSm,        // %smid: the counter this clock value came from
  kClockWarpSlot,  // %warpid: groups the threads the hardware ran as one warp
  kClockLane,      // %laneid
  CLOCK_FIELDS
};

__global__ void completion_clocks(unsigned long long* clocks, unsigned* where) {
  const unsigned threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  const unsigned long long g =
      static_cast<unsigned long long>(warplab::block_in_grid()) * threads_per_block +
      warplab::thread_in_block();
  // clock64 rather than the book's 32-bit clock(): the same counter, but a wrap between
  // two threads' reads cannot turn a difference negative. One instruction per warp, so
  // all active lanes of a warp receive the same value.
  const unsigned long long t = clock64();
  clocks[g] = t;
  unsigned* w = where + g * CLOCK_FIELDS;
  w[kClockSm] = warplab::sm_id();
  w[kClockWarpSlot] = warplab::warp_slot();
  w[kClockLane] = warplab::lane_id();
}
