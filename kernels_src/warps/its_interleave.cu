// its_interleave.cu: the A/B vs X/Y program of the Volta whitepaper, with every statement
// logging a global sequence number, and Z after an optional __syncwarp().
// Shows:    since Volta (independent thread scheduling) the two sides of a divergent branch
//           of one warp may run interleaved: with `handshake`, side 1 runs A, then waits
//           until side 2 has run X, then runs B; side 2 waits for A before X. Pre-Volta,
//           one side ran to the end first, so the waits could never be met.
// Versions: its_interleave(handshake, sync_before_z, ...): handshake 0 = the plain program
//           (the scheduler chooses the order), 1 = the forced A < X < B order above.
// Launch:   exactly one warp: grid 1, block 32. counters: 4 u32, zeroed; log: 32 *
//           kLogFields u32; trace may be null (tags A B X Y Z).
// Expect:   no wait times out; with handshake every A precedes every X precedes every B;
//           with sync_before_z, __activemask() at Z is the full mask in every lane.
// Used by:  examples/warps/its_interleave.lua, examples/warps/trace.lua
#include <warplab/ids.cuh>
#include <warplab/trace.cuh>

// counters[]: the statement sequence, arrivals after A and after X, waits that timed out.
enum InterleaveCounter : unsigned { kSeq, kDoneA, kDoneX, kTimeouts };
// log[lane * kLogFields + field]. Side 1 logs A and B as first/second, side 2 X and Y.
enum InterleaveField : unsigned { kSide, kFirst, kSecond, kZ, kMaskZ, kLogFields };

// Spins until *count >= target or the %globaltimer passes the deadline: a kernel whose
// wait can never be met reports it instead of hanging the GPU. Volatile so every probe
// reads memory.
__device__ bool wait_at_least(const volatile unsigned* count, unsigned target,
                              unsigned long long deadline) {
  while (*count < target) {
    if (warplab::global_timer() > deadline) return false;
  }
  return true;
}

__device__ __forceinline__ unsigned next_seq(unsigned* counters) {
  return atomicAdd(&counters[kSeq], 1u);
}

__global__ void its_interleave(unsigned handshake, unsigned sync_before_z,
                               unsigned long long timeout_ns, unsigned* counters,
                               unsigned* log, unsigned* trace) {
  WL_TRACE_ATTACH(trace);
  const unsigned lane = warplab::lane_id();
  const unsigned half = static_cast<unsigned>(warpSize) / 2;
  const unsigned long long deadline = warplab::global_timer() + timeout_ns;
  unsigned* rec = log + lane * kLogFields;
  bool ok = true;
  if (lane < half) {  // side 1: A; B
    rec[kSide] = 1;
    WL_TRACE('A');
    rec[kFirst] = next_seq(counters);
    if (handshake) {
      __threadfence();
      atomicAdd(&counters[kDoneA], 1u);
      ok = wait_at_least(&counters[kDoneX], half, deadline);
    }
    WL_TRACE('B');
    rec[kSecond] = next_seq(counters);
  } else {            // side 2: X; Y
    rec[kSide] = 2;
    if (handshake) ok = wait_at_least(&counters[kDoneA], half, deadline);
    WL_TRACE('X');
    rec[kFirst] = next_seq(counters);
    if (handshake) {
      __threadfence();
      atomicAdd(&counters[kDoneX], 1u);
    }
    WL_TRACE('Y');
    rec[kSecond] = next_seq(counters);
  }
  if (!ok) atomicAdd(&counters[kTimeouts], 1u);
  if (sync_before_z) __syncwarp();
  const unsigned mask = __activemask();
  WL_TRACE('Z');
  rec[kZ] = next_seq(counters);
  rec[kMaskZ] = mask;
}
