// async_copy.cu: global memory into shared memory, four ways, one tile at a time.
// Shows:    each block walks its tiles (block b: tiles b, b + gridDim, ...) through a ring of
//           two shared buffers. copy_registers loads 16 bytes per thread and stores them
//           (one load in flight per thread: the loop is kept rolled); the other three are
//           asynchronous and fetch the next tile while the current one is consumed:
//           copy_cp_async (cp.async, 16 bytes per thread per copy, <cuda/pipeline>),
//           copy_bulk (one thread issues one cp.async.bulk of the whole tile, completing on
//           an mbarrier with a transaction count), copy_tma (one thread issues one TMA
//           tensor copy of a {256, rows} box of a 2-D tensor map).
// Versions: copy_registers, copy_cp_async (sm_80+), copy_bulk, copy_tma (sm_90+; below,
//           they record nothing).
// Launch:   1-D grid (one block per SM), any block size that is a multiple of 32; shared =
//           2 * tile bytes + 1024 (alignment slack). tile_bytes a multiple of 1024 (256 u32
//           per row), at most 256 rows; src holds tiles * tile_bytes. verify = 1: every
//           thread sums all its words of each tile into sum[0]; verify = 0: each thread reads
//           one word per tile (the copy is still observed). status[0]: waits that timed out.
// Expect:   with verify, sum[0] = the sum of every u32 of src mod 2^32 in each version. At
//           32 threads the bulk and TMA copies run near the memory's peak and the copy
//           through registers far below it; at 512 threads registers catch up part way.
// Used by:  examples/memory/async_copy.lua
#include <cuda/pipeline>

#include <warplab/async.cuh>


// The tiles one block walks.
struct Tiles {
  unsigned tiles, tile_bytes;
  __device__ unsigned words() const { return tile_bytes / 4; }
  __device__ unsigned mine() const {  // how many tiles this block walks
    return blockIdx.x < tiles ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
  }
  __device__ size_t tile(unsigned k) const { return blockIdx.x + static_cast<size_t>(k) * gridDim.x; }
};

// The consumer: every word of the tile (verify) or one word per thread.
__device__ __forceinline__ unsigned consume(const unsigned* buf, unsigned words, int verify) {
  unsigned s = 0;
  if (verify)
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) s += buf[i];
  else
    s = buf[threadIdx.x % words];
  return s;
}

__device__ __forceinline__ void finish(unsigned acc, unsigned* sum) {
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, acc);
}

__global__ void copy_registers(const unsigned* src_words, unsigned tiles, unsigned tile_bytes, int verify, unsigned* sum,
                               unsigned* status) {
  const Tiles t{tiles, tile_bytes};
  const uint4* src = reinterpret_cast<const uint4*>(src_words);
  extern __shared__ unsigned char smem[];
  uint4* buf = reinterpret_cast<uint4*>(warplab::align_up(smem, 1024));
  const unsigned vecs = t.tile_bytes / 16;
  unsigned acc = 0;
  for (unsigned k = 0; k < t.mine(); ++k) {
    uint4* dst = buf + (k & 1) * vecs;
    const uint4* from = src + t.tile(k) * vecs;
#pragma unroll 1
    for (unsigned i = threadIdx.x; i < vecs; i += blockDim.x) dst[i] = from[i];
    __syncthreads();  // the tile is whole
    acc += consume(reinterpret_cast<const unsigned*>(dst), t.words(), verify);
  }
  finish(acc, sum);
}

__global__ void copy_cp_async(const unsigned* src_words, unsigned tiles, unsigned tile_bytes, int verify, unsigned* sum,
                               unsigned* status) {
#if __CUDA_ARCH__ >= 800
  const Tiles t{tiles, tile_bytes};
  const uint4* src = reinterpret_cast<const uint4*>(src_words);
  extern __shared__ unsigned char smem[];
  uint4* buf = reinterpret_cast<uint4*>(warplab::align_up(smem, 1024));
  const unsigned vecs = t.tile_bytes / 16, n = t.mine();
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  auto issue = [&](unsigned k) {  // this thread's 16-byte pieces of tile k, as one stage
    pipe.producer_acquire();
    uint4* dst = buf + (k & 1) * vecs;
    const uint4* from = src + t.tile(k) * vecs;
    for (unsigned i = threadIdx.x; i < vecs; i += blockDim.x)
      cuda::memcpy_async(dst + i, from + i, cuda::aligned_size_t<16>(16), pipe);
    pipe.producer_commit();
  };
  unsigned acc = 0;
  if (n > 0) issue(0);
  for (unsigned k = 0; k < n; ++k) {
    if (k + 1 < n) issue(k + 1);  // the next tile flies while this one is consumed
    pipe.consumer_wait();         // this thread's pieces of tile k have landed
    __syncthreads();              // and every other thread's
    acc += consume(reinterpret_cast<const unsigned*>(buf + (k & 1) * vecs), t.words(), verify);
    pipe.consumer_release();
    __syncthreads();  // nobody reads buffer k & 1 when tile k + 2 is issued into it
  }
  finish(acc, sum);
#endif
}

// copy_bulk and copy_tma: thread 0 issues, everyone waits on the tile's mbarrier.
template <class Issue>
__device__ void bulk_ring(Tiles t, int verify, unsigned* sum, unsigned* status, Issue issue) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ unsigned char smem[];
  __shared__ unsigned long long full[2];
  unsigned char* buf = warplab::align_up(smem, 1024);
  const unsigned n = t.mine();
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full[0], 1);
    cuda::ptx::mbarrier_init(&full[1], 1);
  }
  __syncthreads();
  const unsigned long long deadline = warplab::global_timer() + 2000000000ull;  // 2 s: a lost copy is counted
  unsigned acc = 0;
  if (threadIdx.x == 0 && n > 0) issue(buf, 0u, &full[0]);
  for (unsigned k = 0; k < n; ++k) {
    if (threadIdx.x == 0 && k + 1 < n) issue(buf + ((k + 1) & 1) * t.tile_bytes, k + 1, &full[(k + 1) & 1]);
    // On a timeout every later wait gives up at once: the loop ends, garbage summed.
    if (!warplab::wait_parity(&full[k & 1], (k >> 1) & 1, deadline)) atomicAdd(status, 1u);
    acc += consume(reinterpret_cast<const unsigned*>(buf + (k & 1) * t.tile_bytes), t.words(), verify);
    __syncthreads();  // buffer k & 1 is read before tile k + 2 is issued into it
  }
  finish(acc, sum);
#endif
}

__global__ void copy_bulk(const unsigned* src, unsigned tiles, unsigned tile_bytes, int verify, unsigned* sum,
                          unsigned* status) {
  const Tiles t{tiles, tile_bytes};
  bulk_ring(t, verify, sum, status, [&](unsigned char* dst, unsigned k, unsigned long long* bar) {
    warplab::bulk_load(dst, src + t.tile(k) * t.words(), t.tile_bytes, bar);
  });
}

// map: a 2-D u32 tensor {256, rows * tiles}, box {256, rows}.
__global__ void copy_tma(const __grid_constant__ CUtensorMap map, unsigned tiles, unsigned tile_bytes, int verify,
                         unsigned* sum, unsigned* status) {
  const Tiles t{tiles, tile_bytes};
  const int rows = static_cast<int>(t.tile_bytes / 1024);
  bulk_ring(t, verify, sum, status, [&](unsigned char* dst, unsigned k, unsigned long long* bar) {
    warplab::tensor_load(dst, map, 0, static_cast<int>(t.tile(k)) * rows, t.tile_bytes, bar);
  });
}
