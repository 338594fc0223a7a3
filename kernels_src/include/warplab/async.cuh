// async.cuh: what the Hopper experiments share on the device: the tensor map as a kernel
// parameter (CUtensorMap, which NVRTC does not declare), an mbarrier wait that gives up
// at a %globaltimer deadline instead of hanging, and a shared-memory pointer rounded up to
// an alignment. Device-only, header-only; include as <warplab/async.cuh>. The mbarrier and
// bulk-copy parts compile to nothing below sm_90.
#pragma once
#include <cuda/ptx>

#include <warplab/ids.cuh>

// cuda.h's CUtensorMap: 128 opaque bytes, 64-byte aligned. NVRTC compiles without cuda.h
// (and <cuda/barrier> only declares the struct), so this completes it with the same layout;
// a kernel takes it as `const __grid_constant__ CUtensorMap map` and warplab passes a
// cuda.tensor_map there.
#ifndef CU_TENSOR_MAP_NUM_QWORDS
typedef struct alignas(64) CUtensorMap_st {
  unsigned long long opaque[16];
} CUtensorMap;
#endif

namespace warplab {

// p rounded up to a multiple of `align` bytes (a power of two): TMA wants its shared
// destination 128-byte aligned, and dynamic shared memory promises only 16.
__device__ __forceinline__ unsigned char* align_up(unsigned char* p, unsigned align) {
  const unsigned long long a = reinterpret_cast<unsigned long long>(p);
  return reinterpret_cast<unsigned char*>((a + align - 1) & ~static_cast<unsigned long long>(align - 1));
}

// Waits until the mbarrier at `bar` completes the phase of parity `parity`, or until the
// %globaltimer passes `deadline` (ns): false then, and the caller reports a timeout. Every
// wait in the experiments goes through here, so none can hang the GPU.
__device__ __forceinline__ bool wait_parity(unsigned long long* bar, unsigned parity,
                                            unsigned long long deadline) {
#if __CUDA_ARCH__ >= 900
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity))
    if (global_timer() > deadline) return false;
#endif
  return true;
}

// One thread: `bytes` more bytes will arrive on `bar`, then the bulk copy of `bytes` from
// global `src` to shared `dst` that completes them (16-byte aligned, a multiple of 16).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
#if __CUDA_ARCH__ >= 900
  cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                       bytes);
  cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, src, bytes, bar);
#endif
}

// One thread: the TMA copies the box at (x, y) of `map` into shared `dst`; `bytes` (the box's
// size) arrive on `bar`.
__device__ __forceinline__ void tensor_load(void* dst, const CUtensorMap& map, int x, int y, unsigned bytes,
                                            unsigned long long* bar) {
#if __CUDA_ARCH__ >= 900
  cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                       bytes);
  const int xy[2] = {x, y};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, dst, &map, xy, bar);
#endif
}

}  // namespace warplab
