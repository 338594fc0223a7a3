// pipeline.cu: a producer/consumer pipeline over tiles with full/empty mbarriers, against
// the same work done copy-then-compute with __syncthreads().
// Shows:    warp 0 of each block is the producer: lane 0 issues one bulk copy
//           (cp.async.bulk) per tile into a ring of `stages` shared buffers, each completing
//           on that buffer's `full` mbarrier (a transaction count); the other warps consume:
//           wait on `full`, compute on the tile, and arrive on its `empty` mbarrier, which
//           the producer waits on before it refills the buffer. With one stage the copy and
//           the compute take turns; with two or more the next tiles fly while one is
//           computed. pipeline_tiles' mode isolates each half: 0 both, 1 the copies alone
//           (consumers only wait and release), 2 the compute alone (no copies: the producer
//           arrives on `full` itself, consumers compute on whatever the buffer holds).
// Versions: pipeline_tiles (sm_90+), copy_then_compute (every thread loads its part of a
//           tile through registers, __syncthreads(), computes, __syncthreads()),
//           reference_tiles (each thread's words straight from global memory, no shared
//           memory, no barrier).
// Launch:   1-D grid; pipeline_tiles: block = 32 * (1 + consumer warps), shared = stages *
//           tile_bytes + 1024, stages 1..kMaxStages; copy_then_compute: block a multiple of
//           32, shared = tile_bytes; reference_tiles: block a multiple of 32. tile_bytes a multiple of 16; src holds tiles *
//           tile_bytes; out: `tiles` u32, zeroed; status: 1 u32 (waits that timed out).
// Expect:   out[t] = sum over tile t's words w of mix(w, work) mod 2^32, the same in all three
//           (mode 0); pipeline time near max(copy, compute) from two stages on, near their
//           sum with one, and below copy_then_compute.
// Used by:  examples/sync/pipeline.lua
#include <warplab/async.cuh>

constexpr unsigned kMaxStages = 8;

// `work` rounds of a 32-bit LCG from w: the compute, exact in integers.
__device__ __forceinline__ unsigned mix(unsigned w, unsigned work) {
  for (unsigned i = 0; i < work; ++i) w = w * 1664525u + 1013904223u;
  return w;
}

// The warp's sum into out[tile] (u32, wrapping: exact whatever the order).
__device__ __forceinline__ void add_warp(unsigned s, unsigned* out, size_t tile) {
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) atomicAdd(out + tile, s);
}

__global__ void pipeline_tiles(const unsigned* src, unsigned tiles, unsigned tile_bytes, unsigned stages,
                               unsigned work, int mode, unsigned* out, unsigned* status) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char smem[];
  __shared__ unsigned long long full[kMaxStages], empty[kMaxStages];
  unsigned char* buf = warplab::align_up(smem, 1024);
  const unsigned consumers = blockDim.x / 32 - 1, words = tile_bytes / 4;
  const unsigned n = blockIdx.x < tiles ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  if (threadIdx.x == 0)
    for (unsigned s = 0; s < stages; ++s) {
      cuda::ptx::mbarrier_init(&full[s], 1);
      cuda::ptx::mbarrier_init(&empty[s], consumers);
    }
  __syncthreads();
  const unsigned long long deadline = warplab::global_timer() + 2000000000ull;  // 2 s: a lost copy is counted
  bool late = false;  // a wait gave up: every later one gives up at once, the loop ends
  if (threadIdx.x < 32) {  // the producer warp; lane 0 issues
    if (threadIdx.x == 0)
      for (unsigned k = 0; k < n; ++k) {
        const unsigned s = k % stages, use = k / stages;
        if (use > 0 && !warplab::wait_parity(&empty[s], (use - 1) & 1, deadline)) late = true;
        const size_t tile = blockIdx.x + static_cast<size_t>(k) * gridDim.x;
        if (mode == 2)
          cuda::ptx::mbarrier_arrive(&full[s]);
        else
          warplab::bulk_load(buf + s * tile_bytes, src + tile * words, tile_bytes, &full[s]);
      }
  } else {
    const unsigned me = threadIdx.x - 32, team = consumers * 32;
    for (unsigned k = 0; k < n; ++k) {
      const unsigned s = k % stages;
      if (!warplab::wait_parity(&full[s], (k / stages) & 1, deadline)) late = true;
      if (mode != 1) {
        const unsigned* w = reinterpret_cast<const unsigned*>(buf + s * tile_bytes);
        unsigned sum = 0;
        for (unsigned i = me; i < words; i += team) sum += mix(w[i], work);
        add_warp(sum, out, blockIdx.x + static_cast<size_t>(k) * gridDim.x);
      }
      __syncwarp();
      if (threadIdx.x % 32 == 0) cuda::ptx::mbarrier_arrive(&empty[s]);  // this warp is done with buffer s
    }
  }
  if (late && threadIdx.x % 32 == 0) atomicAdd(status, 1u);
#endif
}

__global__ void copy_then_compute(const unsigned* src, unsigned tiles, unsigned tile_bytes, unsigned work,
                                  unsigned* out) {
  extern __shared__ uint4 tile4[];
  const unsigned vecs = tile_bytes / 16, words = tile_bytes / 4;
  const unsigned* w = reinterpret_cast<const unsigned*>(tile4);
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const uint4* from = reinterpret_cast<const uint4*>(src) + t * vecs;
    for (unsigned i = threadIdx.x; i < vecs; i += blockDim.x) tile4[i] = from[i];
    __syncthreads();  // the tile is whole
    unsigned sum = 0;
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) sum += mix(w[i], work);
    add_warp(sum, out, t);
    __syncthreads();  // nobody still reads it when the next tile comes in
  }
}

__global__ void reference_tiles(const unsigned* src, unsigned tiles, unsigned tile_bytes, unsigned work,
                                unsigned* out) {
  const unsigned words = tile_bytes / 4;
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    unsigned sum = 0;
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) sum += mix(src[t * words + i], work);
    add_warp(sum, out, t);
  }
}
