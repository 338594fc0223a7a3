// dsmem.cu: distributed shared memory: a block of a thread-block cluster reads the shared
// memory of the next block of its cluster (sm_90+).
// Shows:    every block fills its own __shared__ array with values naming itself; after
//           cluster.sync() it maps the next rank's array (cluster.map_shared_rank) and
//           reads it with ordinary loads, as if it were its own; a second cluster.sync()
//           keeps each array alive until its reader is done (a block's shared memory
//           goes away when the block exits).
// Versions: dsmem_neighbour (reads rank + 1 mod cluster size), and where each block ran.
// Launch:   1-D grid, 1-D cluster (cluster = {n, 1, 1}), any block size. out: gridDim *
//           kDsmemWords u32; errors: 1 u32 zeroed; where: gridDim * 3 u32 (SM, rank in
//           the cluster, cluster size). On an older GPU it records nothing.
// Expect:   out[b * kDsmemWords + i] = (the neighbour block's index << 16) + i for every
//           i; no reader finds a value it did not expect; rank = blockIdx.x mod size.
// Used by:  examples/sync/dsmem.lua
#include <cooperative_groups.h>
#include <warplab/ids.cuh>

namespace cg = cooperative_groups;

constexpr unsigned kDsmemWords = 1024;

__global__ void dsmem_neighbour(unsigned* out, unsigned* errors, unsigned* where) {
#if __CUDA_ARCH__ >= 900
  __shared__ unsigned mine[kDsmemWords];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  for (unsigned i = threadIdx.x; i < kDsmemWords; i += blockDim.x) mine[i] = (blockIdx.x << 16) + i;
  cluster.sync();  // every block's array is written
  const unsigned next = (rank + 1) % size;
  const unsigned* theirs = cluster.map_shared_rank(mine, next);
  const unsigned their_block = blockIdx.x - rank + next;  // 1-D clusters: consecutive blocks
  unsigned bad = 0;
  for (unsigned i = threadIdx.x; i < kDsmemWords; i += blockDim.x) {
    const unsigned v = theirs[i];
    out[static_cast<size_t>(blockIdx.x) * kDsmemWords + i] = v;
    bad += v != (their_block << 16) + i;
  }
  if (bad) atomicAdd(errors, bad);
  if (threadIdx.x == 0) {
    where[3 * blockIdx.x] = warplab::sm_id();
    where[3 * blockIdx.x + 1] = rank;
    where[3 * blockIdx.x + 2] = size;
  }
  cluster.sync();  // no block leaves while its neighbour may still read its array
#endif
}
