// residency.cu: a block that stays on its SM for a set time and records where and when.
// Shows:    blocks are handed to SMs (%smid) in waves, as many at a time as the
//           registers, shared memory, warp and block slots allow; blocks run in no fixed
//           order. Compile-time knobs change what one block costs.
// Versions: residency; knobs: -D NACC=n (n live float accumulators: registers),
//           -D SMEM_STATIC=bytes (static __shared__), -D BOUNDS_THREADS=t
//           -D BOUNDS_MIN_BLOCKS=b (__launch_bounds__(t, b)); launch shared= adds dynamic.
// Launch:   any grid and block; rec holds RESIDENCY_FIELDS u64 per block, counter one
//           zeroed u32. spin_ns > 0: stay until that long after the start (residency);
//           iters: a fixed amount of accumulator work first (timing, spills).
// Expect:   distinct rec[kSm] over a large grid = all SMs; at most the occupancy
//           calculator's blocks_per_sm intervals overlap on one SM.
// Used by:  examples/scheduling/waves.lua, examples/scheduling/residency.lua
#include <warplab/ids.cuh>

#ifndef NACC
#define NACC 4
#endif
#ifndef SMEM_STATIC
#define SMEM_STATIC 0
#endif
#ifdef BOUNDS_THREADS
#define RESIDENCY_BOUNDS __launch_bounds__(BOUNDS_THREADS, BOUNDS_MIN_BLOCKS)
#else
#define RESIDENCY_BOUNDS
#endif

// Per-block record in `rec` (u64 each). Keep in sync with lua/warplab/experiment.lua.
enum ResidencyField : unsigned {
  kStart,   // %globaltimer (ns) when the block's first thread began
  kEnd,     // %globaltimer after every thread of the block finished its work
  kSm,      // %smid
  kTicket,  // arrival order: 0 for the first block to start, 1 for the next, ...
  RESIDENCY_FIELDS
};

// One round over the accumulators. Each update reads a neighbour, so the rounds cannot
// be reordered into one accumulator at a time: all NACC values stay live (registers,
// or local memory once the register cap forces spills).
__device__ __forceinline__ void accumulate(float (&acc)[NACC]) {
#pragma unroll
  for (int i = 0; i < NACC; ++i) acc[i] = fmaf(acc[i], 0.5f, acc[(i + 1) % NACC]);
}

__global__ void RESIDENCY_BOUNDS residency(unsigned long long* rec, unsigned* counter,
                                           float* sink, unsigned long long spin_ns,
                                           unsigned iters) {
  const unsigned long long t0 = warplab::global_timer();
  const unsigned b = warplab::block_in_grid();
  const unsigned tib = warplab::thread_in_block();
  if (tib == 0) {
    rec[b * RESIDENCY_FIELDS + kStart] = t0;
    rec[b * RESIDENCY_FIELDS + kSm] = warplab::sm_id();
    rec[b * RESIDENCY_FIELDS + kTicket] = atomicAdd(counter, 1u);
  }
  float acc[NACC];
#pragma unroll
  for (int i = 0; i < NACC; ++i) acc[i] = 1e-3f * static_cast<float>(tib + i);
  for (unsigned it = 0; it < iters; ++it) accumulate(acc);
  // Every thread spins, not just one: the block's warps then all hold their slots and
  // registers for the whole interval, as a real block's would.
  while (warplab::global_timer() - t0 < spin_ns) accumulate(acc);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < NACC; ++i) s += acc[i];
#if SMEM_STATIC > 0
  // Touched through a neighbour's slot so the compiler must keep the whole array.
  __shared__ float tile[SMEM_STATIC / sizeof(float)];
  constexpr unsigned kTile = SMEM_STATIC / sizeof(float);
  tile[tib % kTile] = s;
  __syncthreads();
  s += tile[(tib + 1) % kTile];
#endif
  __syncthreads();
  if (tib == 0) rec[b * RESIDENCY_FIELDS + kEnd] = warplab::global_timer();
  // Never true in practice; the compiler cannot know, so the work above stays.
  if (s == 1234.5f) *sink = s;
}
