// ladder.cu: the rungs of the barrier ladder that cost.cu does not have: an mbarrier
// (cuda::barrier<thread_scope_block>), its split arrive / wait with independent work in
// between, and a dependent load from a block's own shared memory against one from a
// neighbour block's through distributed shared memory (DSMEM).
// Shows:    each loop kernel lines its threads up, runs `iters` rounds and records, from
//           thread 0 of each block, the loop's %globaltimer ns and clock64 cycles (out[2b],
//           out[2b + 1]), as cost.cu's kernels do. The work is WL_WORK (default 32)
//           dependent integer multiply-adds per round, straight-line code (no branch, so
//           every kernel runs the same instructions for it): independent of the barrier,
//           what a split barrier can hide. chase_local / chase_remote: thread 0 follows a
//           ring of `steps` dependent shared-memory loads, in its own block's array or in
//           its cluster neighbour's.
// Versions: work_alone, mbar_wait (arrive_and_wait), mbar_then_work (arrive_and_wait, then
//           the work), mbar_split (arrive, the work, wait); chase_local, chase_remote.
// Launch:   loops: 1-D, one block (any size), out: 2 u64. chase_*: grid 2 in a cluster of 2
//           (sm_90+), any block size; out: 2 u64 per block (ns, cycles per load).
// Expect:   mbar_wait dearer than __syncthreads, cheaper than cluster.sync(); mbar_then_work
//           about work + barrier per round, mbar_split less (the barrier completes while the
//           work runs: at best the larger of the two); a load through DSMEM several times a
//           local shared-memory load.
// Used by:  examples/sync/ladder.lua
#include <cooperative_groups.h>
#include <cuda/barrier>

#include <warplab/ids.cuh>

namespace cg = cooperative_groups;
using Barrier = cuda::barrier<cuda::thread_scope_block>;

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

#ifndef WL_WORK
#define WL_WORK 32
#endif

// WL_WORK dependent multiply-adds, unrolled: nothing the barrier's completion waits for.
// x * x + c, not an affine map, which the compiler would fold into one multiply-add. The
// empty asm statements pin the chain between the calls around it (the compiler may move
// register-only work across an arrive or a wait: x goes in and comes out here).
__device__ __forceinline__ unsigned spin_work(unsigned x) {
  asm volatile("" : "+r"(x));
#pragma unroll
  for (int i = 0; i < WL_WORK; ++i) x = x * x + 1013904223u;
  asm volatile("" : "+r"(x));
  return x;
}

// The block's barrier in shared memory, initialized for every thread of the block. Shared
// memory is never constructed; init() is what sets the barrier up (as the CUDA programming
// guide's own examples do, with the same warning silenced).
#pragma nv_diag_suppress static_var_with_dynamic_init
__device__ Barrier& block_barrier() {
  __shared__ Barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  return bar;
}

// Keeps x alive without storing it: out is written only if x hits one value in 2^32.
__device__ __forceinline__ void keep(unsigned x, unsigned long long* out) {
  if (x == 0x9e3779b9u) out[0] = x;
}

__global__ void work_alone(unsigned iters, unsigned long long* out) {
  unsigned x = threadIdx.x;
  __syncthreads();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) x = spin_work(x);
  clk.record(out);
  keep(x, out);
}

__global__ void mbar_wait(unsigned iters, unsigned long long* out) {
  Barrier& bar = block_barrier();
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) bar.arrive_and_wait();
  clk.record(out);
}

__global__ void mbar_then_work(unsigned iters, unsigned long long* out) {
  Barrier& bar = block_barrier();
  unsigned x = threadIdx.x;
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
    bar.arrive_and_wait();
    x = spin_work(x);
  }
  clk.record(out);
  keep(x, out);
}

__global__ void mbar_split(unsigned iters, unsigned long long* out) {
  Barrier& bar = block_barrier();
  unsigned x = threadIdx.x;
  const LoopClock clk;
#pragma unroll 1
  for (unsigned i = 0; i < iters; ++i) {
    Barrier::arrival_token t = bar.arrive();
    x = spin_work(x);  // while the other threads arrive
    bar.wait(std::move(t));
  }
  clk.record(out);
  keep(x, out);
}

// A ring through kChase words: ring[i] = (i + 97) mod kChase, 97 coprime to kChase, so the
// chase visits every word and each load's address is the last load's value.
constexpr unsigned kChase = 1024;

__device__ __forceinline__ void chase_ring(unsigned* ring) {
  for (unsigned i = threadIdx.x; i < kChase; i += blockDim.x) ring[i] = (i + 97) % kChase;
}

// Thread 0: `steps` dependent loads from `ring`, timed; out[2b] ns, out[2b + 1] cycles, in total.
__device__ __forceinline__ void chase(const unsigned* ring, unsigned steps, unsigned long long* out) {
  if (threadIdx.x != 0) return;
  unsigned i = 0;
  const unsigned long long t0 = warplab::global_timer();
  const long long c0 = clock64();
#pragma unroll 1
  for (unsigned s = 0; s < steps; ++s) i = ring[i];
  const long long c1 = clock64();
  const unsigned long long t1 = warplab::global_timer();
  out[2 * blockIdx.x] = t1 - t0;
  out[2 * blockIdx.x + 1] = static_cast<unsigned long long>(c1 - c0) + (i == 0xffffffffu);
}

__global__ void chase_local(unsigned steps, unsigned long long* out) {
  __shared__ unsigned ring[kChase];
  chase_ring(ring);
  __syncthreads();
  chase(ring, steps, out);
}

__global__ void chase_remote(unsigned steps, unsigned long long* out) {
#if __CUDA_ARCH__ >= 900
  __shared__ unsigned ring[kChase];
  cg::cluster_group cluster = cg::this_cluster();
  chase_ring(ring);
  cluster.sync();  // every block's ring is written
  const unsigned next = (cluster.block_rank() + 1) % cluster.num_blocks();
  chase(cluster.map_shared_rank(ring, next), steps, out);
  cluster.sync();  // no ring goes away while its neighbour reads it
#endif
}
