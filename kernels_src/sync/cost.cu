// cost.cu: what one barrier costs at each level of the hierarchy: a warp, a block, a
// thread-block cluster, a cooperative grid; and the kernel boundary (empty_kernel).
// Shows:    each kernel lines its threads up at the barrier once, then runs `iters`
//           barriers of its level in a loop; thread 0 of every block records the loop's
//           %globaltimer nanoseconds and clock64 cycles. cost_loop is the same loop with
//           no barrier: what the loop itself costs per iteration.
// Versions: cost_loop, cost_syncwarp (__syncwarp), cost_syncthreads (__syncthreads),
//           cost_cluster_sync (cooperative_groups cluster.sync(): sm_90+, launched with
//           cluster =), cost_grid_sync (grid.sync(): launched cooperative = true),
//           empty_kernel (launched back to back: a kernel boundary is a grid barrier).
// Launch:   1-D; out: 2 * gridDim u64. cost_cluster_sync needs a cluster launch (on an
//           older GPU it records zeros); cost_grid_sync a cooperative one.
// Expect:   the wider the barrier, the dearer: __syncwarp < __syncthreads < cluster.sync()
//           < grid.sync(); a kernel boundary costs microseconds, like a grid sync.
// Used by:  examples/sync/cost.lua
#include <cooperative_groups.h>
#include <warplab/ids.cuh>

namespace cg = cooperative_groups;

struct LoopClock {
  unsigned long long t0;
  long long c0;
  __device__ LoopClock() : t0(warplab::global_timer()), c0(clock64()) {}
  // Thread 0 of each block: [2b] nanoseconds, [2b + 1] cycles since construction.
  __device__ void record(unsigned long long* out) const {
    const long long c1 = clock64();
    const unsigned long long t1 = warplab::global_timer();
    if (threadIdx.x != 0) return;
    out[2 * blockIdx.x] = t1 - t0;
    out[2 * blockIdx.x + 1] = static_cast<unsigned long long>(c1 - c0);
  }
};

// Every loop is kept rolled (unroll 1), so each row pays the same loop overhead.
__global__ void cost_loop(unsigned iters, unsigned long long* out) {
  __syncthreads();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) asm volatile("");
  clk.record(out);
}

__global__ void cost_syncwarp(unsigned iters, unsigned long long* out) {
  __syncthreads();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) __syncwarp();
  clk.record(out);
}

__global__ void cost_syncthreads(unsigned iters, unsigned long long* out) {
  __syncthreads();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) __syncthreads();
  clk.record(out);
}

__global__ void cost_cluster_sync(unsigned iters, unsigned long long* out) {
#if __CUDA_ARCH__ >= 900
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) cluster.sync();
  clk.record(out);
#else
  if (threadIdx.x == 0) out[2 * blockIdx.x] = out[2 * blockIdx.x + 1] = 0;
#endif
}

__global__ void cost_grid_sync(unsigned iters, unsigned long long* out) {
  cg::grid_group grid = cg::this_grid();
  grid.sync();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) grid.sync();
  clk.record(out);
}

__global__ void empty_kernel() {}
