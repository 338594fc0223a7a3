// grid.cu: reductions whose threads stride over the whole input instead of one or two
// elements each, and the two extremes of finishing: atomics for every element.
// Shows:    16-byte loads and several loads in flight per thread make the sum run at
//           the speed of reading memory; atomics on one address serialize; integer
//           sums are exact in any order and __reduce_add_sync does a warp's in one step.
// Versions: reduce_vec4 (grid-stride, WL_UNROLL float4 loads in flight: reduce.cuh; one
//           partial per block, a second launch of 1 block sums the partials), reduce_atomic (one
//           atomicAdd per element into *total), reduce_redux (u32 data: grid-stride
//           uint4 loads into 64-bit sums, __reduce_add_sync per warp, the last-block
//           finish into *out).
// Launch:   1-D; blockDim a multiple of 32, <= 1024. reduce_vec4: out holds gridDim
//           floats. reduce_atomic: one element per thread, *total zeroed first.
//           reduce_redux: x[i] < 2^16, partials gridDim u64, *ticket 0 before the first
//           launch (the kernel leaves it 0).
// Expect:   float versions within their rounding bound of the double sum (atomics: until
//           the running sum reaches 2^24, where adding any x < 1 rounds away);
//           reduce_redux exactly the integer sum; vec4 near the read bandwidth.
// Used by:  examples/reductions/ladder.lua, examples/reductions/single_pass.lua
#include <warplab/reduce.cuh>

__global__ void WL_BOUNDS reduce_vec4(const float* x, size_t n, float* out) {
  __shared__ float scratch[32];
  const float t = warplab::thread_sum4<WL_UNROLL, WL_ACC, float, float>(x, n);
  const float v = warplab::block_sum(t, scratch);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Every element an atomic add on the same address: the L2 performs them one after the
// other, a float running sum in whatever order they arrive.
__global__ void reduce_atomic(const float* x, float* total, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}

// __reduce_add_sync adds 32-bit values over a warp in one instruction (sm_80+), so a
// 64-bit sum goes in 16-bit pieces: 32 lanes of 16-bit pieces stay below 2^21, and the
// top piece below 2^32 while every v < 2^59. Exact.
__device__ __forceinline__ unsigned long long redux_u64(unsigned long long v) {
  const unsigned full = 0xffffffffu;
  const unsigned lo16 = static_cast<unsigned>(v & 0xffffu);
  const unsigned mid16 = static_cast<unsigned>((v >> 16) & 0xffffu);
  const unsigned long long lo = __reduce_add_sync(full, lo16);
  const unsigned long long mid = __reduce_add_sync(full, mid16);
  const unsigned long long hi = __reduce_add_sync(full, static_cast<unsigned>(v >> 32));
  return lo + (mid << 16) + (hi << 32);
}

__global__ void WL_BOUNDS reduce_redux(const unsigned* x, size_t n,
                                       unsigned long long* partials, unsigned* ticket,
                                       unsigned long long* out) {
  __shared__ unsigned long long scratch[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  using U64 = unsigned long long;
  U64 v = redux_u64(warplab::thread_sum4<WL_UNROLL, WL_ACC, unsigned, U64>(x, n));
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) v = redux_u64(lane < (blockDim.x >> 5) ? scratch[lane] : 0ull);
  warplab::finish_last_block(v, partials, ticket, out, scratch);
}
