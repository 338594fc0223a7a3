// syncblocks.cu: the Handbook's home-made __syncblocks(): every block adds one to a
// global counter, then spins until the counter says all blocks have arrived.
// Shows:    it works only while every block of the grid is resident at once: the
//           spinning blocks hold their SMs, so a block that has not started can never
//           start and arrive. With a %globaltimer deadline the spin gives up and the
//           block reports "deadlocked"; without one (syncblocks_forever) the kernel
//           never ends, and only the host's watchdog (`warplab --timeout`) notices.
// Versions: syncblocks (rounds barriers, each followed by a read of the neighbour block's
//           value written before it; deadline timeout_ns per block), syncblocks_forever
//           (the same with no deadline: run it only under --timeout).
// Launch:   1-D, any block size. count: 1 u32 zeroed; data: rounds * gridDim u32;
//           status: kSyncStatusWords u32 zeroed; start: gridDim u64 (may be null).
//           Launched cooperatively it is legal: the grid then fits by construction.
// Expect:   grid <= co-resident capacity (blocks per SM x SMs): every block completes
//           every round and reads its neighbour's value; grid > capacity: the resident
//           blocks hit the deadline (deadlocked), the others start only after they left.
// Used by:  examples/sync/syncblocks.lua, tests/cli/syncblocks_timeout_gpu.sh
#include <warplab/ids.cuh>

enum SyncStatus : unsigned { kCompleted, kDeadlocked, kMismatches, kSyncStatusWords };

// The barrier: the block's writes are fenced, thread 0 arrives and spins until `target`
// arrivals (round r waits for r x gridDim), then fences again so the other blocks'
// writes are visible. Returns false (in every thread) when the deadline passed first.
template <bool kDeadline>
__device__ bool sync_blocks(unsigned* count, unsigned target, unsigned long long deadline) {
  __shared__ bool ok;
  __syncthreads();
  if (threadIdx.x == 0) {
    bool arrived = true;
    __threadfence();
    atomicAdd(count, 1u);
    while (*reinterpret_cast<volatile unsigned*>(count) < target) {
      if (kDeadline && warplab::global_timer() > deadline) {
        arrived = false;
        break;
      }
    }
    __threadfence();
    ok = arrived;
  }
  __syncthreads();
  return ok;
}

template <bool kDeadline>
__device__ void rounds_of_barriers(unsigned rounds, unsigned long long timeout_ns,
                                   unsigned* count, unsigned* data, unsigned* status,
                                   unsigned long long* start) {
  const unsigned b = blockIdx.x, grid = gridDim.x;
  const unsigned long long t0 = warplab::global_timer();
  if (start && threadIdx.x == 0) start[b] = t0;
  for (unsigned r = 0; r < rounds; ++r) {
    unsigned* slot = data + static_cast<size_t>(r) * grid;
    if (threadIdx.x == 0) slot[b] = b * 3u + r;  // written before the barrier
    if (!sync_blocks<kDeadline>(count, (r + 1) * grid, t0 + timeout_ns)) {
      if (threadIdx.x == 0) atomicAdd(&status[kDeadlocked], 1u);
      return;
    }
    const unsigned next = (b + 1) % grid;  // read after it: written by another block
    if (threadIdx.x == 0 && __ldcg(slot + next) != next * 3u + r) atomicAdd(&status[kMismatches], 1u);
  }
  if (threadIdx.x == 0) atomicAdd(&status[kCompleted], 1u);
}

__global__ void syncblocks(unsigned rounds, unsigned long long timeout_ns, unsigned* count,
                           unsigned* data, unsigned* status, unsigned long long* start) {
  rounds_of_barriers<true>(rounds, timeout_ns, count, data, status, start);
}

__global__ void syncblocks_forever(unsigned rounds, unsigned* count, unsigned* data,
                                   unsigned* status) {
  rounds_of_barriers<false>(rounds, 0, count, data, status, nullptr);
}
