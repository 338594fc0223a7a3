// vote_shuffle.cu: every warp vote and shuffle intrinsic on values the host chose, with
// full and partial participation masks, so a CPU model can predict each result.
// Shows:    __ballot_sync, __all_sync, __any_sync, __activemask, __match_any_sync and
//           __shfl_sync / _up / _down / _xor (any width), over all 32 lanes, over the
//           even lanes only, and over a mask computed at run time (leader broadcast).
// Versions: vote_shuffle: one result per (warp, op, lane), ops in VoteOp order below.
// Launch:   1-D, blockDim a multiple of 32 (warp size 32: every sm_70+ GPU); v holds one
//           u32 per thread; out holds threads * kVoteOps u32, pre-filled by the host with a
//           sentinel that lanes outside an op's mask leave in place.
// Expect:   every entry equals the CPU model (lua/warplab/warpmodel.lua).
// Used by:  examples/warps/vote.lua
#include <warplab/ids.cuh>

// Keep in sync with examples/warps/vote.lua.
enum VoteOp : unsigned {
  kBallot,        // __ballot_sync(all, v & 1)
  kAll,           // __all_sync(all, v & 1)
  kAny,           // __any_sync(all, (v & 7) == 0)
  kActiveMask,    // __activemask() inside `if (v % 3 == 0)`; other lanes write nothing
  kMatchAny,      // __match_any_sync(all, v & 3): the lanes holding the same key
  kShflIdx,       // __shfl_sync(all, v, (lane * src_mul + src_add) & 31, width)
  kShflUp,        // __shfl_up_sync(all, v, delta, width)
  kShflDown,      // __shfl_down_sync(all, v, delta, width)
  kShflXor,       // __shfl_xor_sync(all, v, lane_mask, width)
  kEvenBallot,    // even lanes only: __ballot_sync(EVEN, v & 1)
  kEvenAll,       // even lanes only: __all_sync(EVEN, v & 1)
  kEvenAny,       // even lanes only: __any_sync(EVEN, (v & 7) == 0)
  kEvenShflXor,   // even lanes only: __shfl_xor_sync(EVEN, v, 2): partners stay even
  kEvenShflDown,  // even lanes only: __shfl_down_sync(EVEN, v, 2)
  kLeader,        // lanes with v > threshold: m = __ballot_sync(all, v > threshold);
                  // __shfl_sync(m, v, __ffs(m) - 1): the lowest such lane's value
  kVoteOps
};

constexpr unsigned kAllLanes = 0xffffffffu;
constexpr unsigned kEvenLanes = 0x55555555u;

__global__ void vote_shuffle(const unsigned* v_in, unsigned* out, unsigned src_mul,
                             unsigned src_add, unsigned delta, unsigned lane_mask,
                             unsigned width, unsigned threshold) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = warplab::lane_id();
  const unsigned warp = t / 32;
  const unsigned v = v_in[t];
  unsigned* o = out + warp * kVoteOps * 32 + lane;  // o[op * 32] is this lane's result
  const int w = static_cast<int>(width);

  o[kBallot * 32] = __ballot_sync(kAllLanes, v & 1u);
  o[kAll * 32] = __all_sync(kAllLanes, v & 1u);
  o[kAny * 32] = __any_sync(kAllLanes, (v & 7u) == 0);
  if (v % 3 == 0) o[kActiveMask * 32] = __activemask();
  __syncwarp();
  o[kMatchAny * 32] = __match_any_sync(kAllLanes, v & 3u);
  o[kShflIdx * 32] = __shfl_sync(kAllLanes, v, static_cast<int>((lane * src_mul + src_add) & 31u), w);
  o[kShflUp * 32] = __shfl_up_sync(kAllLanes, v, delta, w);
  o[kShflDown * 32] = __shfl_down_sync(kAllLanes, v, delta, w);
  o[kShflXor * 32] = __shfl_xor_sync(kAllLanes, v, static_cast<int>(lane_mask), w);

  // Partial participation: only the lanes named in the mask may call, and every lane
  // they read from must be in it too.
  if ((lane & 1u) == 0) {
    o[kEvenBallot * 32] = __ballot_sync(kEvenLanes, v & 1u);
    o[kEvenAll * 32] = __all_sync(kEvenLanes, v & 1u);
    o[kEvenAny * 32] = __any_sync(kEvenLanes, (v & 7u) == 0);
    o[kEvenShflXor * 32] = __shfl_xor_sync(kEvenLanes, v, 2);
    o[kEvenShflDown * 32] = __shfl_down_sync(kEvenLanes, v, 2);
  }
  __syncwarp();

  // A mask known only at run time: the lanes over the threshold elect their lowest lane
  // and receive its value.
  const unsigned over = __ballot_sync(kAllLanes, v > threshold);
  if (v > threshold) o[kLeader * 32] = __shfl_sync(over, v, __ffs(over) - 1);
}
