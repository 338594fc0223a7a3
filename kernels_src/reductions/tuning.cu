// tuning.cu: the fastest sum's two kernels on their own, for the tuning sweep.
// Shows:    nothing new: the same device code as reduce_last_block (single_pass.cu) and
//           reduce_vec4 (grid.cu), in a file without cooperative groups, which compiles
//           in a tenth of the time, so a sweep can build a hundred configurations of the
//           knobs of reduce.cuh (WL_LAYOUT, WL_UNROLL, WL_ACC, WL_LOAD, WL_MIN_BLOCKS,
//           WL_FINISH) in one run.
// Versions: tuned_last_block (reduce_last_block: one launch, the last block finishes),
//           tuned_vec4 (reduce_vec4: one partial per block; a second launch of 1 block of
//           the same kernel sums the partials).
// Launch:   as reduce_last_block and reduce_vec4: 1-D; blockDim a multiple of 32, <= 1024
//           (<= WL_BLOCK with WL_MIN_BLOCKS); partials / out hold gridDim floats; *ticket
//           0 before the first launch (each launch leaves it 0).
// Expect:   the same PTX as the originals for the same defines, names aside (checked
//           offline by tests/cli/reduce_sweep_offline.sh); sums within their bound.
// Used by:  bench/reduce_sweep.lua
#include <warplab/reduce.cuh>

__global__ void WL_BOUNDS tuned_last_block(const float* x, size_t n, float* partials,
                                           unsigned* ticket, float* out) {
  __shared__ float scratch[32];
  const float t = warplab::thread_sum4<WL_UNROLL, WL_ACC, float, float>(x, n);
  const float v = warplab::block_sum(t, scratch);
  warplab::finish_last_block(v, partials, ticket, out, scratch);
}

__global__ void WL_BOUNDS tuned_vec4(const float* x, size_t n, float* out) {
  __shared__ float scratch[32];
  const float t = warplab::thread_sum4<WL_UNROLL, WL_ACC, float, float>(x, n);
  const float v = warplab::block_sum(t, scratch);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
