// trace.cuh: a per-lane event recorder. WL_TRACE(tag) appends {tag, block, warp, lane,
// SM, active mask, clock64} to a buffer the host reads back and lua/warplab/trace.lua
// renders as a per-warp timeline (divergence = disjoint active masks, reconvergence = the
// full mask). Device-only, header-only; depends on <warplab/ids.cuh>.
//
// Buffer layout (all u32, so Lua decodes it from cuda.array("u32", ...)):
//   header, kTraceHeaderWords words:
//     [0] events claimed so far (atomicAdd; may exceed capacity: the excess was dropped)
//     [1] capacity in records (written by the host, never by the device)
//     [2] magic 0x574C5431 ("WLT1") and [3] words per record: written by the host so the
//         decoder can refuse a buffer that is not a trace
//   then `capacity` records of kTraceRecordWords words each, in the order slots were
//   claimed (a global event order):
//     [0] tag  [1] block (row-major in grid)  [2] warp in block  [3] lane (%laneid)
//     [4] SM (%smid)  [5] __activemask() at the call  [6] clock64 low  [7] clock64 high
//
// Use: give the kernel an `unsigned* trace` parameter, open the kernel with
// WL_TRACE_ATTACH(trace); then WL_TRACE('A') anywhere in it. A null buffer (nil from Lua)
// turns every WL_TRACE into one uniform branch, so one kernel serves traced and timed runs.
#pragma once

#include <warplab/ids.cuh>

namespace warplab {

constexpr unsigned kTraceHeaderWords = 4;
constexpr unsigned kTraceRecordWords = 8;
constexpr unsigned kTraceMagic = 0x574C5431u;

// The buffer a kernel records into; WL_TRACE_ATTACH declares one named wl_trace_sink_.
struct TraceSink {
  unsigned* buf;
};

// Records one event for the calling thread. The mask and the clock are read first, at the
// call site (forceinline), so they describe the caller's state, not the recorder's own
// atomic. Lanes that call together read the same clock: that is how the host groups
// events into steps.
__device__ __forceinline__ void trace_record(unsigned* buf, unsigned tag) {
  if (buf == nullptr) return;
  const unsigned mask = __activemask();
  const unsigned long long clk = clock64();
  const unsigned slot = atomicAdd(buf, 1u);
  // Capacity is written once by the host before the launch; a plain load is enough.
  if (slot >= buf[1]) return;
  unsigned* r = buf + kTraceHeaderWords + slot * kTraceRecordWords;
  r[0] = tag;
  r[1] = block_in_grid();
  r[2] = thread_in_block() / static_cast<unsigned>(warpSize);
  r[3] = lane_id();
  r[4] = sm_id();
  r[5] = mask;
  r[6] = static_cast<unsigned>(clk);
  r[7] = static_cast<unsigned>(clk >> 32);
}

}  // namespace warplab

#define WL_TRACE_ATTACH(buffer) const ::warplab::TraceSink wl_trace_sink_{(buffer)}
#define WL_TRACE(tag) ::warplab::trace_record(wl_trace_sink_.buf, static_cast<unsigned>(tag))
