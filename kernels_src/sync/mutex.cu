// mutex.cu: a global atomicCAS mutex guarding a plain (non-atomic) counter across blocks,
// the Handbook's "simple mutual exclusion" between blocks.
// Shows:    thread 0 of every block takes the lock `iters` times; inside, it reads the
//           counter, writes its block index at that position of `order` and stores the
//           counter + 1 with ordinary loads and stores: only the lock keeps updates from
//           being lost. `order` is the sequence in which blocks got the lock.
// Versions: mutex_counter (one lock holder per block; the lanes of one warp contending
//           for a lock are examples/warps/its_spinlock.lua).
// Launch:   1-D, any block size (only thread 0 works). lock, counter: 1 u32 each, zeroed;
//           order: gridDim * iters u32; status: kMutexStatusWords u32 zeroed.
// Expect:   counter = gridDim x iters exactly, each block iters times in `order`, no
//           wait hits the deadline; the order is not block-index order (the hardware
//           promises none).
// Used by:  examples/sync/mutex.lua
#include <warplab/ids.cuh>

enum MutexStatus : unsigned { kTimeouts, kFailedCas, kMutexStatusWords };

// Spins on atomicCAS(lock, 0, 1) until it wins or the deadline passes. The fence after
// winning makes the previous holder's stores (fenced before its release) visible here.
__device__ bool acquire(unsigned* lock, unsigned long long deadline, unsigned& failed) {
  while (atomicCAS(lock, 0u, 1u) != 0u) {
    ++failed;
    if (warplab::global_timer() > deadline) return false;
  }
  __threadfence();
  return true;
}

// The fence first: the critical section's stores are visible before the lock reads free.
__device__ void release(unsigned* lock) {
  __threadfence();
  atomicExch(lock, 0u);
}

__global__ void mutex_counter(unsigned iters, unsigned long long timeout_ns, unsigned* lock,
                              unsigned* counter, unsigned* order, unsigned* status) {
  if (threadIdx.x != 0) return;
  const unsigned long long deadline = warplab::global_timer() + timeout_ns;
  unsigned failed = 0;
  volatile unsigned* c = counter;
  for (unsigned i = 0; i < iters; ++i) {
    if (!acquire(lock, deadline, failed)) {
      atomicAdd(&status[kTimeouts], 1u);
      break;
    }
    const unsigned n = *c;  // a plain read-modify-write: safe only under the lock
    if (n < gridDim.x * iters) order[n] = blockIdx.x;  // a broken lock must not write out of bounds
    *c = n + 1;
    release(lock);
  }
  atomicAdd(&status[kFailedCas], failed);
}
