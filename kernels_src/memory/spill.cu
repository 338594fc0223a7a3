// spill.cu: register pressure: many live values, and what a register cap does to them.
// Shows:    every thread keeps WL_LIVE floats live across a loop and updates each from its
//           neighbour every round. Uncapped, the compiler gives it about WL_LIVE + a few
//           registers; under cuda.compile{max_registers = r} with r too small, ptxas
//           spills the rest to local memory (per-thread, cached in L1) and every round
//           loads and stores them again.
// Versions: live_values (one kernel; the cap is a compile option).
// Launch:   1-D, any grid and block; x holds at least WL_LIVE floats, out one float per
//           thread of the grid.
// Expect:   no spill uncapped; spill bytes > 0 at a tight cap; more resident blocks per
//           SM, yet a slower kernel, once it spills.
// Used by:  examples/memory/spills.lua
#ifndef WL_LIVE
#define WL_LIVE 96
#endif

__global__ void live_values(const float* __restrict__ x, float* out, int rounds) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float v[WL_LIVE];
#pragma unroll
  for (int j = 0; j < WL_LIVE; ++j) v[j] = x[j] + static_cast<float>(t & 7u);
  for (int r = 0; r < rounds; ++r) {
    // Each value becomes the mean of itself and its neighbour: bounded, and no value can
    // be finished before the others, so all WL_LIVE stay live for the whole loop.
#pragma unroll
    for (int j = 0; j < WL_LIVE; ++j) v[j] = 0.5f * (v[j] + v[(j + 1) % WL_LIVE]);
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < WL_LIVE; ++j) sum += v[j];
  out[t] = sum;
}
