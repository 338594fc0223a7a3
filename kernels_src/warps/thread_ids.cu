// thread_ids.cu: every ID a thread has, as computed and as the hardware reports it.
// Shows:    threads of a 1-3-D block are numbered row-major (x fastest) and cut into warps
//           of warpSize consecutive threads; the textbook warpID = gid >> 5, laneID =
//           gid & 31 matches the hardware's %laneid only when blockDim is a multiple of 32
//           (blocks of 28 threads leave 4 lanes of each warp idle).
// Versions: thread_ids (one record of THREAD_IDS_FIELDS u32 per thread, fields below).
// Launch:   any 1-3-D grid and block; out holds records * THREAD_IDS_FIELDS u32, records
//           >= total threads (threads past `records` write nothing).
// Expect:   lane_in_block == hw_lane and warp_in_block == gid-in-block / warpSize always;
//           lane_formula == hw_lane for every thread iff blockDim is a multiple of 32.
// Used by:  examples/warps/ids.lua, tests/cli/compile.sh
#include <warplab/ids.cuh>

// Field order of a record (u32 each). Keep in sync with the Lua side.
enum ThreadIdField : unsigned {
  kTidX, kTidY, kTidZ,        // threadIdx
  kBidX, kBidY, kBidZ,        // blockIdx
  kThreadInBlock,             // row-major linear index within the block
  kBlockInGrid,               // row-major linear block index
  kGid,                       // block_in_grid * threads_per_block + thread_in_block
  kWarpFormula,               // gid / warpSize    (the textbook gid >> 5)
  kLaneFormula,               // gid % warpSize    (the textbook gid & 31)
  kWarpInBlock,               // thread_in_block / warpSize: the warp the hardware forms
  kLaneInBlock,               // thread_in_block % warpSize
  kHwLane,                    // %laneid
  kHwWarpSlot,                // %warpid (placement on the SM; may change under preemption)
  kSmId,                      // %smid
  THREAD_IDS_FIELDS
};

__global__ void thread_ids(unsigned* out, unsigned long long records) {
  const unsigned tib = warplab::thread_in_block();
  const unsigned threads_per_block = blockDim.x * blockDim.y * blockDim.z;
  const unsigned long long gid =
      static_cast<unsigned long long>(warplab::block_in_grid()) * threads_per_block + tib;
  if (gid >= records) return;
  // warpSize, not 32: the formulas are the textbook's, the divisor is the hardware's.
  const unsigned ws = static_cast<unsigned>(warpSize);
  unsigned* r = out + gid * THREAD_IDS_FIELDS;
  r[kTidX] = threadIdx.x;
  r[kTidY] = threadIdx.y;
  r[kTidZ] = threadIdx.z;
  r[kBidX] = blockIdx.x;
  r[kBidY] = blockIdx.y;
  r[kBidZ] = blockIdx.z;
  r[kThreadInBlock] = tib;
  r[kBlockInGrid] = warplab::block_in_grid();
  r[kGid] = static_cast<unsigned>(gid);
  r[kWarpFormula] = static_cast<unsigned>(gid / ws);
  r[kLaneFormula] = static_cast<unsigned>(gid % ws);
  r[kWarpInBlock] = tib / ws;
  r[kLaneInBlock] = tib % ws;
  r[kHwLane] = warplab::lane_id();
  r[kHwWarpSlot] = warplab::warp_slot();
  r[kSmId] = warplab::sm_id();
}
