// ids.cuh: where a thread runs, read from the hardware through PTX special registers
// (%laneid, %warpid, %smid, %nsmid, %globaltimer), next to the IDs a thread computes
// from threadIdx/blockIdx. Device-only, header-only; include as <warplab/ids.cuh>.
#pragma once

namespace warplab {

// The lane (0..warpSize-1) this thread occupies in its warp, as the hardware numbers it.
__device__ __forceinline__ unsigned lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

// The warp slot on the SM. Volatile: it may change when a warp is preempted, so it is
// evidence of placement, not an ID to index with.
__device__ __forceinline__ unsigned warp_slot() {
  unsigned r;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
  return r;
}

// The SM running this thread (blocks never migrate between SMs while they run).
__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Upper bound on %smid + 1 (not necessarily the number of SMs present).
__device__ __forceinline__ unsigned sm_count_bound() {
  unsigned r;
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r));
  return r;
}

// Nanoseconds from a clock shared by all SMs (resolution about 1 us on many GPUs).
__device__ __forceinline__ unsigned long long global_timer() {
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

// Row-major thread index within the block: x fastest, then y, then z.
__device__ __forceinline__ unsigned thread_in_block() {
  return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}

// Row-major block index within the grid.
__device__ __forceinline__ unsigned block_in_grid() {
  return blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
}

}  // namespace warplab
