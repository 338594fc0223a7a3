// latency_chain.cu: a latency-bound kernel: every warp follows a chain of dependent
// loads through a table that lives in L2, so it waits ~one L2 latency per step.
// Shows:    when each warp can only wait, throughput grows with the number of warps
//           resident per SM (occupancy): more warps, more loads in flight.
// Versions: chain_init (fills the table), chase; -D NACC=n keeps n accumulators live
//           across the loop, so n sets the kernel's register count (and occupancy).
// Launch:   chain_init: any 1-D grid; entries a power of two, mul % 4 == 1, add odd (a
//           single cycle through every entry). chase: 1-D blocks, a multiple of 32
//           threads; out holds one u32 per thread; rounds * NACC loads per warp.
// Expect:   time for a fixed number of warps falls as predicted occupancy rises.
// Used by:  examples/scheduling/occupancy.lua
#include <warplab/ids.cuh>

#ifndef NACC
#define NACC 4
#endif

// next[i] = (i * mul + add) mod entries: with entries a power of two, mul = 1 (mod 4)
// and add odd, this visits every entry once before it repeats (Hull-Dobell).
__global__ void chain_init(unsigned* next, unsigned entries, unsigned mul, unsigned add) {
  const unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < entries; i += stride)
    next[i] = (i * mul + add) & (entries - 1);
}

__global__ void chase(const unsigned* next, unsigned* out, unsigned entries, unsigned rounds) {
  const unsigned long long gtid =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  // All lanes of a warp follow the same chain: one 32-byte sector per step and warp,
  // so the warp waits on latency, not on bandwidth. Warps start at scattered entries.
  const unsigned warp = static_cast<unsigned>(gtid / warpSize);
  unsigned idx = (warp * 2654435761u) & (entries - 1);
  unsigned acc[NACC];
#pragma unroll
  for (int j = 0; j < NACC; ++j) acc[j] = j;
  for (unsigned r = 0; r < rounds; ++r) {
#pragma unroll
    for (int j = 0; j < NACC; ++j) {
      idx = __ldcg(next + idx);  // L2 only: the L1 would hide some of the latency
      acc[j] = acc[j] * 0x9E3779B1u + idx;  // a multiply chain per accumulator: not merged
    }
  }
  unsigned s = 0;
#pragma unroll
  for (int j = 0; j < NACC; ++j) s = s * 31u + acc[j];
  out[gtid] = s;
}
