// its_spinlock.cu: one spin lock contended by the lanes of a single warp.
// Shows:    `while (atomicCAS(lock, 0, 1) != 0) {}` then the critical section: the lane
//           that wins leaves the loop while its warp-mates keep spinning. Before Volta a
//           warp had one program counter, kept running the spinning side, and the winner
//           never got to release: a deadlock. With independent thread scheduling the
//           winner makes progress and every lane gets its turn.
// Versions: its_spinlock: `iters` acquisitions per lane of a global lock; the critical
//           section does a plain (non-atomic) read-modify-write of `counter` and logs the
//           lane in `order`; a spin past the %globaltimer deadline gives up ("deadlocked").
// Launch:   exactly one warp: grid 1, block 32. lock, counter, status (kStatusWords) zeroed;
//           done: 32 u32; order: 32 * iters u32; trace may be null (tags L = locked,
//           U = unlocked).
// Expect:   counter == 32 * iters, every lane done == iters, no timeouts, no lane ever
//           found another inside the critical section.
// Used by:  examples/warps/its_spinlock.lua
#include <warplab/ids.cuh>
#include <warplab/trace.cuh>

// status[]: lanes that hit the deadline, failed CAS attempts (contention), entries into
// the critical section that found it occupied (a broken lock), lanes inside right now.
enum SpinStatus : unsigned { kTimedOut, kSpins, kOverlaps, kInside, kStatusWords };

__global__ void its_spinlock(unsigned iters, unsigned long long timeout_ns, unsigned* lock,
                             unsigned* counter, unsigned* done, unsigned* order,
                             unsigned* status, unsigned* trace) {
  WL_TRACE_ATTACH(trace);
  const unsigned lane = warplab::lane_id();
  const unsigned long long deadline = warplab::global_timer() + timeout_ns;
  unsigned spins = 0, finished = 0;
  bool dead = false;
  for (unsigned i = 0; i < iters && !dead; ++i) {
    // The textbook acquire: spin on the CAS, then fall through into the critical section.
    while (atomicCAS(lock, 0u, 1u) != 0u) {
      ++spins;
      if (warplab::global_timer() > deadline) {
        dead = true;
        break;
      }
    }
    if (dead) break;
    __threadfence();  // acquire: see what the previous owner wrote
    WL_TRACE('L');
    if (atomicAdd(&status[kInside], 1u) != 0u) atomicAdd(&status[kOverlaps], 1u);
    volatile unsigned* c = counter;
    const unsigned n = *c;  // unprotected read-modify-write: only the lock makes it exact
    order[n] = lane;
    *c = n + 1;
    atomicSub(&status[kInside], 1u);
    WL_TRACE('U');
    __threadfence();  // release: our writes are visible before the lock reads free
    atomicExch(lock, 0u);
    ++finished;
  }
  done[lane] = finished;
  atomicAdd(&status[kSpins], spins);
  if (dead) atomicAdd(&status[kTimedOut], 1u);
}
