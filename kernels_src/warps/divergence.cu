// divergence.cu: what an if/else costs when it splits the lanes of one warp, and when it
// splits whole warps.
// Shows:    a warp runs both sides of a branch its lanes disagree on, one after the other
//           with the other side's lanes masked off; warps that disagree run independently.
// Versions: divergence(mode, ...): kAllA, kAllB (every lane takes one path: the
//           baselines), kByLane (even lanes path A, odd lanes path B), kByWarp (even warps
//           A, odd warps B). Optional per-lane trace (tags S A a B b J, see trace.cuh).
//           divergence_nested: a traced if/else with a nested if and a loop whose trip
//           count differs per lane (tags S, a/b, 0 1 2 per iteration, e/o, J).
// Launch:   divergence: 1-D; blockDim a multiple of warpSize (4 warps: one per scheduler);
//           cycles and sink hold one entry per thread; trace may be null.
//           divergence_nested: one or more whole warps; trace holds 136 events per warp.
// Expect:   per warp, kByLane ~ T(A) + T(B), kByWarp ~ T(own path), within 25 %.
//           Traces: each side's events carry only that side's lanes; J the full mask.
// Used by:  examples/warps/divergence.lua, examples/warps/trace.lua
#include <warplab/ids.cuh>
#include <warplab/trace.cuh>

enum DivergenceMode : unsigned { kAllA = 0, kAllB = 1, kByLane = 2, kByWarp = 3 };

// The two paths do different float work (x * c1 + c0 against g * g + c), with trip
// counts read from kernel arguments, so the compiler can neither merge them into one
// loop nor turn the branch into predicated straight-line code (a loop cannot be
// predicated). Each keeps 8 independent chains of dependent FMAs: enough to keep the
// warp's scheduler issuing on every cycle it can, and both paths need the same pipe. So
// under divergence the issue slots of both sides add up however the scheduler orders
// them (one latency-bound chain per side could hide its latency behind the other side
// on a GPU with independent thread scheduling, and different pipes could overlap).
__device__ __forceinline__ unsigned path_a(unsigned seed, unsigned iters) {
  float f[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) f[c] = static_cast<float>((seed >> c) & 0xffffu);
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 8; ++c) f[c] = fmaf(f[c], 0.9999f, 0.5f);
  }
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += f[c];
  return __float_as_uint(s);
}

__device__ __forceinline__ unsigned path_b(unsigned seed, unsigned iters) {
  float g[8];
  // Start in [0, 0.5): g = g * g + 0.25 then creeps toward 0.5 and stays finite.
#pragma unroll
  for (int c = 0; c < 8; ++c) g[c] = static_cast<float>((seed >> c) & 0xffffu) * 7.6e-6f;
  for (unsigned i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 8; ++c) g[c] = fmaf(g[c], g[c], 0.25f);
  }
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += g[c];
  return __float_as_uint(s);
}

// cycles[t] = clock64 cycles thread t spent from a converged start to a converged end
// (the host takes the largest per warp); sink[t] keeps the results alive.
__global__ void divergence(unsigned mode, unsigned iters_a, unsigned iters_b,
                           unsigned long long* cycles, unsigned* sink, unsigned* trace) {
  WL_TRACE_ATTACH(trace);
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = warplab::lane_id();
  const unsigned warp = threadIdx.x / static_cast<unsigned>(warpSize);
  const bool take_a = mode == kAllA || (mode == kByLane && (lane & 1u) == 0) ||
                      (mode == kByWarp && (warp & 1u) == 0);
  // The seed depends on the thread, so no two lanes compute the same thing.
  const unsigned seed = t * 2654435761u + mode;
  unsigned r;
  __syncwarp();
  WL_TRACE('S');
  const unsigned long long t0 = clock64();
  if (take_a) {
    WL_TRACE('A');
    r = path_a(seed, iters_a);
    WL_TRACE('a');
  } else {
    WL_TRACE('B');
    r = path_b(seed, iters_b);
    WL_TRACE('b');
  }
  // Every lane waits here for the rest of its warp, so t1 marks the end of both paths.
  __syncwarp();
  const unsigned long long t1 = clock64();
  WL_TRACE('J');
  cycles[t] = t1 - t0;
  sink[t] = r;
}

// Lanes 0-15 run `lane % 4` loop iterations (the mask shrinks as lanes leave the loop);
// lanes 16-31 split again by parity. __syncwarp() brings all 32 back before J.
__global__ void divergence_nested(unsigned* trace) {
  WL_TRACE_ATTACH(trace);
  const unsigned lane = warplab::lane_id();
  WL_TRACE('S');
  if (lane < 16) {
    WL_TRACE('a');
    for (unsigned i = 0; i < (lane & 3u); ++i) WL_TRACE('0' + i);
  } else {
    WL_TRACE('b');
    if (lane & 1u) {
      WL_TRACE('o');
    } else {
      WL_TRACE('e');
    }
  }
  __syncwarp();
  WL_TRACE('J');
}
