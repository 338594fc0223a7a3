// single_pass.cu: the whole sum in one launch, finished by the last block to arrive or
// after a grid-wide barrier, and a probe of what the last-block pattern needs.
// Shows:    no second launch: the Handbook's last-block pattern (atomic ticket plus
//           __threadfence) and a cooperative grid.sync() both finish inside the kernel;
//           without the writer's fence nothing orders a block's partial before its ticket.
// Versions: reduce_last_block (grid-stride float4 sums, WL_UNROLL loads in flight into
//           WL_ACC accumulators, WL_LOAD cache policy; the last block sums the partials
//           and resets the ticket: the fastest sum here), reduce_grid_sync (the same
//           sums, grid.sync(), block 0 finishes), last_block_probe_fenced / _unfenced
//           (every thread stores its own partial tagged with the launch number; the last
//           block counts slots it still finds holding an older launch's tag).
// Launch:   1-D; blockDim a multiple of 32, <= 1024; partials hold gridDim floats, *ticket
//           0 before the first launch (each launch leaves it 0). reduce_grid_sync:
//           cooperative, gridDim <= co-resident blocks. Probes: rec holds gridDim *
//           blockDim u64, out and stale one entry per launch number.
// Expect:   reduce_last_block and reduce_grid_sync within the rounding bound of the double
//           sum; the fenced probe never reads a stale slot; the unfenced one may.
// Used by:  examples/reductions/single_pass.lua, examples/reductions/ladder.lua,
//           bench/reduce.lua
#include <cooperative_groups.h>
#include <warplab/reduce.cuh>

__global__ void WL_BOUNDS reduce_last_block(const float* x, size_t n, float* partials,
                                            unsigned* ticket, float* out) {
  __shared__ float scratch[32];
  const float t = warplab::thread_sum4<WL_UNROLL, WL_ACC, float, float>(x, n);
  const float v = warplab::block_sum(t, scratch);
  warplab::finish_last_block(v, partials, ticket, out, scratch);
}

// grid.sync() is a barrier for every thread of the grid (with the memory ordering of a
// fence), legal only when all blocks are resident at once: a cooperative launch checks it.
__global__ void WL_BOUNDS reduce_grid_sync(const float* x, size_t n, float* partials, float* out) {
  __shared__ float scratch[32];
  const float t = warplab::thread_sum4<WL_UNROLL, WL_ACC, float, float>(x, n);
  const float v = warplab::block_sum(t, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
  cooperative_groups::this_grid().sync();
  if (blockIdx.x != 0) return;
  float s = 0.0f;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) s += __ldcg(partials + b);
  s = warplab::block_sum(s, scratch);
  if (threadIdx.x == 0) *out = s;
}

// The probe. Each thread's slot gets (launch << 32 | bits of its partial): one 8-byte
// store, so a reader sees the tag and value of the same write. The partials are scaled
// by 1 or 2 on alternate launches, so a stale slot also changes the sum. Without the
// fence, the stores of the block's threads and thread 0's ticket are unordered for any
// other SM: the barrier orders them only within the block. The last block reads every
// slot from L2 (__ldcg); the fenced version's thread 0 also fences after drawing the
// last ticket (acquire), before the barrier passes the news on.
template <bool kFence>
__device__ __forceinline__ void probe(const float* x, size_t n, unsigned long long* rec,
                                      unsigned* ticket, float* out, unsigned* stale,
                                      unsigned launch) {
  __shared__ float scratch[32];
  __shared__ unsigned scratch_u[32];
  __shared__ bool last;
  const float scale = static_cast<float>(1 + (launch & 1u));
  const float v = warplab::thread_sum4<2, 2, float, float>(x, n) * scale;
  const size_t slots = static_cast<size_t>(gridDim.x) * blockDim.x;
  rec[static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x] =
      (static_cast<unsigned long long>(launch) << 32) | __float_as_uint(v);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (kFence) __threadfence();
    const bool mine = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (kFence && mine) __threadfence();
    last = mine;
  }
  __syncthreads();
  if (!last) return;
  float s = 0.0f;
  unsigned old = 0;
  for (size_t i = threadIdx.x; i < slots; i += blockDim.x) {
    const unsigned long long r = __ldcg(rec + i);
    old += static_cast<unsigned>(r >> 32) != launch;
    s += __uint_as_float(static_cast<unsigned>(r));
  }
  s = warplab::block_sum(s, scratch);
  old = warplab::block_sum(old, scratch_u);
  if (threadIdx.x == 0) {
    out[launch] = s;
    stale[launch] = old;
    *ticket = 0;
  }
}

__global__ void last_block_probe_fenced(const float* x, size_t n, unsigned long long* rec,
                                        unsigned* ticket, float* out, unsigned* stale,
                                        unsigned launch) {
  probe<true>(x, n, rec, ticket, out, stale, launch);
}

__global__ void last_block_probe_unfenced(const float* x, size_t n, unsigned long long* rec,
                                          unsigned* ticket, float* out, unsigned* stale,
                                          unsigned launch) {
  probe<false>(x, n, rec, ticket, out, stale, launch);
}
