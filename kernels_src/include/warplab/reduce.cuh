// reduce.cuh: device pieces the reduction kernels share: warp and block sums, 16-byte
// loads with a selectable cache policy, a vectorized grid-stride sum that takes any n
// and any 4-byte-aligned start, and the last-block finish (atomic ticket + fences).
// Device-only, header-only; include as <warplab/reduce.cuh>. Knobs: -D WL_LOAD=0..4,
// WL_UNROLL, WL_ACC, WL_LAYOUT, WL_MIN_BLOCKS, WL_BLOCK and WL_FINISH (below).
#pragma once

// WL_LOAD picks how 16-byte loads go through the caches (the data is read once):
// 0 __ldg (read-only path; CUB's LOAD_LDG), 1 __ldcs (streaming: evict first), 2
// ld.global.nc with L1::no_allocate (bypass L1), 3 as 2 plus an L2::256B prefetch hint,
// 4 as 3 plus an L2 evict-first policy (createpolicy: the lines leave L2 first).
#ifndef WL_LOAD
#define WL_LOAD 3
#endif

// WL_UNROLL: 16-byte loads in flight per thread in the grid-stride kernels; WL_ACC: the
// float4 accumulators they are added into (a divisor of WL_UNROLL).
#ifndef WL_UNROLL
#define WL_UNROLL 4
#endif
#ifndef WL_ACC
#define WL_ACC WL_UNROLL
#endif

// WL_LAYOUT: which float4s a thread reads. 0, grid-stride: the U loads of one step lie a
// whole grid apart (n / U apart in all). 1, tiles: a block reads U x blockDim
// consecutive float4s per step (its threads side by side, U rows of them), and the grid
// takes tiles in turn, as CUB's block loads do: each SM streams 16 KiB runs. Tiles are the
// default: on an H100 (2026-11-24, 2^28 floats, unroll 4) they read at 3113 GB/s against
// 3072 for the grid-stride layout and 3070-3072 for cub::DeviceReduce::Sum. 2, runs: the
// same tiles, but each block reads one contiguous run of them (tiles / gridDim, the first
// tiles % gridDim blocks one more), as CUB's even-share grid does.
#ifndef WL_LAYOUT
#define WL_LAYOUT 1
#endif

// WL_MIN_BLOCKS > 0 puts __launch_bounds__(WL_BLOCK, WL_MIN_BLOCKS) on the grid-stride
// kernels: the compiler keeps registers low enough for that many blocks of WL_BLOCK
// threads per SM (spilling if it must); launches with more than WL_BLOCK threads fail.
#if defined(WL_MIN_BLOCKS) && WL_MIN_BLOCKS > 0
#ifndef WL_BLOCK
#define WL_BLOCK 256
#endif
#define WL_BOUNDS __launch_bounds__(WL_BLOCK, WL_MIN_BLOCKS)
#else
#define WL_BOUNDS
#endif

// WL_FINISH: partials each thread of the finishing block loads before adding them
// (finish_last_block); 1 loads one, adds it, loads the next. More matter when the grid
// is several blocks per thread of the finishing block.
#ifndef WL_FINISH
#define WL_FINISH 1
#endif

namespace warplab {

__device__ __forceinline__ float4 load4(const float4* p) {
#if WL_LOAD == 1
  return __ldcs(p);
#elif WL_LOAD == 2 || WL_LOAD == 3
  float4 v;
#if WL_LOAD == 2
  asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];"
#else
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
#endif
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
#elif WL_LOAD == 4
  float4 v;
  asm("{\n\t.reg .b64 pol;\n\t"
      "createpolicy.fractional.L2::evict_first.b64 pol, 1.0;\n\t"
      "ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4], pol;\n\t}"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
#else
  return __ldg(p);
#endif
}

// Sum over the 32 lanes of a full warp (xor butterfly): every lane gets the same bits,
// since a + b == b + a exactly. Five additions on any element's path.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum over the block, valid in thread 0 (and in all of warp 0). blockDim.x must be a
// multiple of 32 (full-mask shuffles); scratch is 32 T of shared memory. The leading
// barrier lets a block call this twice in a row with the same scratch.
template <class T>
__device__ __forceinline__ T block_sum(T v, T* scratch) {
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < (blockDim.x >> 5) ? scratch[lane] : T(0));
  return v;
}

// The 16-byte vector of 4 T and its load: float4 through load4 above, uint4 through
// the read-only path.
template <class T> struct Vec4;
template <> struct Vec4<float> { using type = float4; };
template <> struct Vec4<unsigned> { using type = uint4; };
__device__ __forceinline__ uint4 load4(const uint4* p) { return __ldg(p); }

// This thread's share of x[0..n), summed in S: 16-byte loads over the aligned middle, U
// of them in flight per iteration, added into NA float4 accumulators (NA divides U; fewer
// accumulators, fewer registers, more resident threads), and single elements for the
// up-to-3 before the first 16-byte boundary and after the last. The grid's T threads
// stride over the vectors, so a warp's load is one coalesced 512-byte request.
// Rounding (floats): an element passes through at most ceil(k4 / U) * (U / NA) + U adds
// in its accumulator lane (k4 = ceil(n4 / T)), 2 + (NA - 1) combining the lanes, and 2
// for the head and tail (the host's bound mirrors this: reduce.thread_levels).
template <int U, int NA, class T, class S>
__device__ __forceinline__ S thread_sum4(const T* x, size_t n) {
  static_assert(NA >= 1 && U % NA == 0, "NA must divide U");
  using V = typename Vec4<T>::type;
  const size_t t = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t head = ((16u - (reinterpret_cast<size_t>(x) & 15u)) & 15u) / sizeof(T);  // 0..3
  if (head > n) head = n;
  const size_t n4 = (n - head) / 4;
  const V* x4 = reinterpret_cast<const V*>(x + head);
  S acc[NA][4];
#pragma unroll
  for (int a = 0; a < NA; ++a) acc[a][0] = acc[a][1] = acc[a][2] = acc[a][3] = S(0);
#if WL_LAYOUT == 1
  // Tiles of U x blockDim float4s, taken by the blocks in turn; the one partial tile at
  // the end belongs to the block whose turn it is.
  const size_t tile = static_cast<size_t>(U) * blockDim.x, step = tile * gridDim.x;
  size_t base = static_cast<size_t>(blockIdx.x) * tile;
  for (; base + tile <= n4; base += step) {
    V v[U];  // every load issued before any add: U x 16 bytes in flight per thread
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = load4(x4 + base + u * blockDim.x + threadIdx.x);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      S* a = acc[u % NA];
      a[0] += v[u].x; a[1] += v[u].y; a[2] += v[u].z; a[3] += v[u].w;
    }
  }
  for (size_t i = base + threadIdx.x; i < n4; i += blockDim.x) {
    const V v = load4(x4 + i);
    acc[0][0] += v.x; acc[0][1] += v.y; acc[0][2] += v.z; acc[0][3] += v.w;
  }
#elif WL_LAYOUT == 2
  // Runs: block b reads tiles [first, first + count) in order, count = tiles / gridDim
  // or one more for the first tiles % gridDim blocks; the partial tile at the end, if
  // any, is the last block's.
  const size_t tile = static_cast<size_t>(U) * blockDim.x, tiles = n4 / tile;
  const size_t per = tiles / gridDim.x, big = tiles % gridDim.x, b = blockIdx.x;
  size_t base = (b * per + (b < big ? b : big)) * tile;
  const size_t end = base + (per + (b < big ? 1 : 0)) * tile;
  for (; base < end; base += tile) {
    V v[U];  // every load issued before any add: U x 16 bytes in flight per thread
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = load4(x4 + base + u * blockDim.x + threadIdx.x);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      S* a = acc[u % NA];
      a[0] += v[u].x; a[1] += v[u].y; a[2] += v[u].z; a[3] += v[u].w;
    }
  }
  if (b == gridDim.x - 1) {
    for (size_t i = tiles * tile + threadIdx.x; i < n4; i += blockDim.x) {
      const V v = load4(x4 + i);
      acc[0][0] += v.x; acc[0][1] += v.y; acc[0][2] += v.z; acc[0][3] += v.w;
    }
  }
#else
  const size_t nt = static_cast<size_t>(gridDim.x) * blockDim.x;  // threads in the grid
  size_t i = t;
  for (; i + (U - 1) * nt < n4; i += U * nt) {
    V v[U];  // every load issued before any add: U x 16 bytes in flight per thread
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = load4(x4 + i + u * nt);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      S* a = acc[u % NA];
      a[0] += v[u].x; a[1] += v[u].y; a[2] += v[u].z; a[3] += v[u].w;
    }
  }
  for (; i < n4; i += nt) {
    const V v = load4(x4 + i);
    acc[0][0] += v.x; acc[0][1] += v.y; acc[0][2] += v.z; acc[0][3] += v.w;
  }
#endif
  S s = (acc[0][0] + acc[0][1]) + (acc[0][2] + acc[0][3]);
#pragma unroll
  for (int a = 1; a < NA; ++a) s += (acc[a][0] + acc[a][1]) + (acc[a][2] + acc[a][3]);
  const size_t tail = head + 4 * n4;  // the first element after the vectors
  if (t < head) s += x[t];
  if (t < n - tail) s += x[tail + t];
  return s;
}

// The last-block finish. Thread 0 stores the block's total in partials[blockIdx.x],
// fences (release: the store is visible GPU-wide before the ticket is), and draws a
// ticket; the thread drawing gridDim.x - 1 fences again (acquire: every partial whose
// ticket it saw is visible to it) before the barrier hands the news to its block, which
// sums every partial, writes *out, and resets the ticket to 0 for the next launch.
// Returns true in the block that finished. Partials are read from L2 (__ldcg): this
// SM's L1 never held them, but L1 is not coherent.
template <class T>
__device__ __forceinline__ bool finish_last_block(T total, T* partials, unsigned* ticket, T* out,
                                                  T* scratch) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    __threadfence();
    const bool mine = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (mine) __threadfence();
    last = mine;
  }
  __syncthreads();
  if (!last) return false;
  T s = T(0);
  // WL_FINISH partials in flight per thread (the loop unrolled so that its loads are
  // issued before their adds); the adds stay in the same order.
#if WL_FINISH > 1
#pragma unroll WL_FINISH
#endif
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) s += __ldcg(partials + b);
  s = block_sum(s, scratch);
  if (threadIdx.x == 0) {
    *out = s;
    *ticket = 0;  // every other block has drawn its ticket: no one reads it any more
  }
  return true;
}

}  // namespace warplab
