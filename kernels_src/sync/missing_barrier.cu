// missing_barrier.cu: the __syncthreads() text's sumWithinBlock block tree, with its
// barriers and without them, each block checking its own sum.
// Shows:    the tree reads partners' shared-memory slots that other warps write; without
//           __syncthreads() nothing makes a reader wait for the writer, so a block sum
//           can add slots that still hold an older block's values. `late_ns` > 0 makes
//           the upper half of the block's warps store their value that much later (as
//           if their loads had missed every cache): the race then shows on almost every
//           block (a stale half can still add up to the right sum by chance).
// Versions: tree_synced (the text's kernel: a barrier after the load and after each
//           level), tree_unsynced (the same lines, no barrier at all).
// Launch:   1-D; blockDim a power of two, 64..1024; shared = blockDim * 4 bytes. x holds
//           gridDim * blockDim floats with small integer values (every partial sum is
//           exact in float), want the gridDim exact block sums; wrong[run] counts the
//           blocks of launch `run` whose sum differs.
// Expect:   tree_synced never wrong; tree_unsynced wrong on some blocks, on almost
//           every block with late_ns of a few microseconds.
// Used by:  examples/sync/missing_barrier.lua
#include <warplab/ids.cuh>

// Busy-waits `ns` nanoseconds of %globaltimer (the warp issues nothing useful).
__device__ __forceinline__ void stall(unsigned long long ns) {
  const unsigned long long until = warplab::global_timer() + ns;
  while (warplab::global_timer() < until) {
  }
}

template <bool kSync>
__device__ __forceinline__ void tree(const float* x, const float* want, unsigned* wrong,
                                     unsigned run, unsigned long long late_ns) {
  extern __shared__ float data[];
  const unsigned tid = threadIdx.x;
  const float v = x[static_cast<size_t>(blockIdx.x) * blockDim.x + tid];
  if (late_ns && tid >= blockDim.x / 2) stall(late_ns);  // the partners of the first level
  data[tid] = v;
  if (kSync) __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) data[tid] += data[tid + s];
    if (kSync) __syncthreads();
  }
  if (tid == 0 && data[0] != want[blockIdx.x]) atomicAdd(&wrong[run], 1u);
}

__global__ void tree_synced(const float* x, const float* want, unsigned* wrong, unsigned run,
                            unsigned long long late_ns) {
  tree<true>(x, want, wrong, run, late_ns);
}

__global__ void tree_unsynced(const float* x, const float* want, unsigned* wrong, unsigned run,
                              unsigned long long late_ns) {
  tree<false>(x, want, wrong, run, late_ns);
}
