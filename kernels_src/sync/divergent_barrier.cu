// divergent_barrier.cu: __syncthreads() where only part of the block reaches it, in five
// arrangements, each bounded by a %globaltimer deadline so the GPU is never stuck.
// Shows:    the text says a barrier under a branch that not every thread takes can
//           deadlock. Group A (in the branch) calls __syncthreads(); group B does not:
//           it waits for A to come out of its barrier (or for the deadline), then calls a
//           __syncthreads() of its own. Since Volta a barrier waits for every thread
//           that has not exited, at any __syncthreads() call site: A is held until B
//           gives up. Without B's deadline the block would hang.
// Versions: divergent_barrier(mode, ...): mode 0 warps split (A = the first half of the
//           warps), 1 lanes split (A = even lanes of every warp), 2 if/else with a
//           barrier on each side (B does not wait), 3 B's warps exit before the barrier,
//           4 B's lanes (odd lanes) exit before it.
// Launch:   one block, blockDim a multiple of 64, <= 1024. flags: blockDim u32 zeroed;
//           rec: blockDim * kRecFields u64 zeroed; status: kStatusWords u32 zeroed.
// Expect:   modes 0, 1: every B thread times out and A passes only after that (the
//           barrier held A); mode 2: the two call sites act as one barrier (every thread
//           sees every flag); modes 3, 4: A passes at once (exited threads do not count).
// Used by:  examples/sync/divergent_barrier.lua
#include <warplab/ids.cuh>

// rec[thread * kRecFields + field]: group (1 = A, 2 = B), ns from the thread's start to
// its barrier call and out of it, flags it saw set after the barrier, 1 if its wait
// timed out.
// kPartner (A only): whether A's partner in B had already given up when A came out of its
// barrier: the evidence that the barrier held A, which does not rest on timer reads
// (ptxas may move a %globaltimer read across bar.sync: on the H100 both stamps around the
// barrier read the same value).
enum BarrierField : unsigned { kGroup, kArrive, kPass, kSeen, kTimedOut, kPartner, kRecFields };
enum BarrierStatus : unsigned { kReleased, kStatusWords };

__device__ __forceinline__ unsigned count_flags(const volatile unsigned* flags) {
  unsigned n = 0;
  for (unsigned i = 0; i < blockDim.x; ++i) n += flags[i];
  return n;
}

__global__ void divergent_barrier(unsigned mode, unsigned long long timeout_ns, unsigned* flags,
                                  unsigned long long* rec, unsigned* status) {
  const unsigned tid = threadIdx.x;
  const unsigned long long t0 = warplab::global_timer();
  const bool by_lane = mode == 1 || mode == 4;
  const bool in_a = by_lane ? (warplab::lane_id() % 2 == 0) : (tid < blockDim.x / 2);
  volatile unsigned* released = status + kReleased;
  unsigned long long* r = rec + static_cast<size_t>(tid) * kRecFields;
  r[kGroup] = in_a ? 1 : 2;
  if (!in_a && mode >= 3) return;  // B exits before any barrier
  reinterpret_cast<volatile unsigned*>(flags)[tid] = 1;
  __threadfence_block();
  if (in_a) {
    r[kArrive] = warplab::global_timer() - t0;
    __syncthreads();  // the barrier inside the branch
    r[kPass] = warplab::global_timer() - t0;
    r[kSeen] = count_flags(flags);
    const unsigned partner = by_lane ? (tid ^ 1u) : tid + blockDim.x / 2;
    r[kPartner] = reinterpret_cast<volatile unsigned long long*>(rec)[static_cast<size_t>(partner) * kRecFields + kTimedOut];
    *released = 1;
  } else {
    if (mode != 2) {  // modes 0, 1: wait for A to come out, at most timeout_ns
      bool timed_out = false;
      while (*released == 0) {
        if (warplab::global_timer() - t0 > timeout_ns) {
          timed_out = true;
          break;
        }
      }
      r[kTimedOut] = timed_out;
    }
    r[kArrive] = warplab::global_timer() - t0;
    __syncthreads();  // another call site: the else branch, or after giving up
    r[kPass] = warplab::global_timer() - t0;
    r[kSeen] = count_flags(flags);
  }
}
