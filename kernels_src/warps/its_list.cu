// its_list.cu: concurrent inserts into a doubly linked list with one lock per node (the
// Volta whitepaper's starvation-free example), many of them from lanes of the same warp.
// Shows:    insert_after(a, b) locks a, then a's successor c (always in list order, so
//           lock waits form no cycle), links a <-> b <-> c, unlocks. Lanes of one warp wait
//           on each other's locks; independent thread scheduling lets the holder finish.
// Versions: its_list_insert: thread t inserts node first_new + t after node target[t].
// Launch:   1-D, any block size; next/prev/locks hold one u32 per node (nodes = initial +
//           inserts), next/prev of the initial list linked by the host, locks zeroed;
//           status: kListStatusWords u32 zeroed. Targets must not be the tail node.
// Expect:   no lock wait times out; the host's forward and backward walks agree and visit
//           every node once; node first_new + t lies between target[t] and the initial
//           node after it.
// Used by:  examples/warps/its_list.lua
#include <warplab/ids.cuh>

enum ListStatus : unsigned { kListTimedOut, kListSpins, kListStatusWords };

// Acquire a node's lock or give up at the deadline (the kernel must end even when the
// locking is broken). The fence after the CAS makes the last owner's writes visible.
__device__ bool lock_node(unsigned* locks, unsigned node, unsigned long long deadline,
                          unsigned& spins) {
  while (atomicCAS(&locks[node], 0u, 1u) != 0u) {
    ++spins;
    if (warplab::global_timer() > deadline) return false;
  }
  __threadfence();
  return true;
}

// Release: the fence first, so the links written under the lock are visible before the
// lock reads free.
__device__ void unlock_node(unsigned* locks, unsigned node) {
  __threadfence();
  atomicExch(&locks[node], 0u);
}

__global__ void its_list_insert(unsigned inserts, unsigned first_new, const unsigned* target,
                                unsigned* next, unsigned* prev, unsigned* locks,
                                unsigned long long timeout_ns, unsigned* status) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= inserts) return;
  const unsigned long long deadline = warplab::global_timer() + timeout_ns;
  // Links are read and written through volatile pointers: another thread changed them
  // under the lock we now hold, and the compiler must not reuse stale values.
  volatile unsigned* vnext = next;
  volatile unsigned* vprev = prev;
  const unsigned a = target[t];
  const unsigned b = first_new + t;
  unsigned spins = 0;
  bool ok = lock_node(locks, a, deadline, spins);
  if (ok) {
    const unsigned c = vnext[a];  // stable: only a holder of a's lock changes a's next
    ok = lock_node(locks, c, deadline, spins);
    if (ok) {
      vprev[b] = a;
      vnext[b] = c;
      vnext[a] = b;
      vprev[c] = b;
      unlock_node(locks, c);
    }
    unlock_node(locks, a);
  }
  if (!ok) atomicAdd(&status[kListTimedOut], 1u);
  atomicAdd(&status[kListSpins], spins);
}
