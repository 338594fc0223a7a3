// ladder.cu: the shared-memory block sum, step by step, each step its own kernel.
// Shows:    what divergence, bank conflicts, idle threads, barriers and shuffles cost
//           in a memory-bound kernel; each version differs from the one before in one idea.
// Versions: reduce_interleaved (tid % (2d) == 0: divergent warps), reduce_strided
//           (index 2*d*tid: no divergence, but 2d-way bank conflicts), reduce_sequential
//           (tid < d: contiguous active threads, conflict-free), reduce_first_add (two
//           loads and an add before the tree: no idle half), reduce_unroll_plain /
//           _volatile / _syncwarp (the last warp without barriers: plain shared memory is
//           wrong, volatile is the old idiom, __syncwarp is what Volta's model asks for),
//           reduce_shuffle (warp shuffles, 32 floats of shared memory), sum_within_block
//           (the __syncthreads text's kernel: static 256-float array, one load per thread).
// Launch:   1-D; blockDim a power of two, 64..1024 (sum_within_block: at most 256);
//           shared = blockDim * 4 bytes (reduce_shuffle, sum_within_block: 0);
//           out[blockIdx.x] = the block's sum of x[block's range] (one element per
//           thread, two from reduce_first_add on), n < 2^31. The host repeats passes
//           over the partials until one remains.
// Expect:   every version equals the double-precision sum within its rounding bound,
//           except reduce_unroll_plain; each step faster than the one before.
// Used by:  examples/reductions/ladder.lua, examples/reductions/last_warp.lua
#include <warplab/reduce.cuh>

// One element per thread, a tree of interleaved pairs: at distance d the threads whose
// tid is a multiple of 2d add their neighbour. Active threads are scattered over every
// warp, so every warp keeps issuing until the last levels (divergence), and `%` costs.
__global__ void reduce_interleaved(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    if (tid % (2 * d) == 0) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The same pairs, but thread tid works on index 2*d*tid: the active threads are the
// first ones (whole warps retire), yet a warp's 32 accesses are 2d words apart, so they
// fall on 32 / gcd(2d, 32) banks: 2-way conflicts at d = 1, up to 32-way.
__global__ void reduce_strided(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    const unsigned k = 2 * d * tid;
    if (k < blockDim.x) s[k] += s[k + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Sequential addressing: thread tid adds s[tid + d], d halving from blockDim/2. Active
// threads are contiguous and consecutive words fall on consecutive banks.
__global__ void reduce_sequential(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (tid < d) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// Each thread loads two elements a block apart and adds them before the tree: half the
// blocks, and no thread is idle in the first level.
__device__ __forceinline__ float load_pair(const float* x, unsigned n) {
  const unsigned i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  return (i < n ? x[i] : 0.0f) + (i + blockDim.x < n ? x[i + blockDim.x] : 0.0f);
}

__global__ void reduce_first_add(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  const unsigned tid = threadIdx.x;
  s[tid] = load_pair(x, n);
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (tid < d) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// First add, then the tree with barriers down to 64 partial sums; the last warp
// (tid < 32) finishes alone. The three tails below differ only in how its lanes see
// each other's writes.
__device__ __forceinline__ void tree_to_64(float* s, const float* x, unsigned n) {
  s[threadIdx.x] = load_pair(x, n);
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 32; d >>= 1) {
    if (threadIdx.x < d) s[threadIdx.x] += s[threadIdx.x + d];
    __syncthreads();
  }
}

// Plain shared memory, no barrier: the compiler may keep s[tid] in a register and drop
// the intermediate stores (it does: see last_warp.lua), so lanes read stale partners.
__global__ void reduce_unroll_plain(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  tree_to_64(s, x, n);
  const unsigned t = threadIdx.x;
  if (t < 32) {
    s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8];
    s[t] += s[t + 4];  s[t] += s[t + 2];  s[t] += s[t + 1];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// volatile: every access is a real shared-memory access, in program order. Correct only
// if the 32 lanes run each statement together (warp-synchronous): true before Volta,
// not promised since (independent thread scheduling), though the hardware usually does.
__global__ void reduce_unroll_volatile(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  tree_to_64(s, x, n);
  const unsigned t = threadIdx.x;
  if (t < 32) {
    volatile float* v = s;
    v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8];
    v[t] += v[t + 4];  v[t] += v[t + 2];  v[t] += v[t + 1];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// __syncwarp between every read and the write that could overwrite what a partner still
// has to read: correct under the Volta memory model, whatever the lanes' schedule.
__global__ void reduce_unroll_syncwarp(const float* x, float* out, unsigned n) {
  extern __shared__ float s[];
  tree_to_64(s, x, n);
  const unsigned t = threadIdx.x;
  if (t < 32) {
    float v = s[t];
#pragma unroll
    for (unsigned d = 32; d > 0; d >>= 1) {
      v += s[t + d];
      __syncwarp();
      s[t] = v;
      __syncwarp();
    }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// Warp shuffles: registers instead of shared memory inside a warp, one barrier in all.
__global__ void reduce_shuffle(const float* x, float* out, unsigned n) {
  __shared__ float scratch[32];
  const float v = warplab::block_sum(load_pair(x, n), scratch);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// The __syncthreads text's sumWithinBlock: a fixed 256-float array, one element per
// thread, zero beyond n, a barrier after the loads and after every level.
__global__ void sum_within_block(const float* input, float* output, unsigned n) {
  __shared__ float shared_data[256];
  const unsigned tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
  shared_data[tid] = gid < n ? input[gid] : 0.0f;
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (tid < d) shared_data[tid] += shared_data[tid + d];
    __syncthreads();
  }
  if (tid == 0) output[blockIdx.x] = shared_data[0];
}
