// copy.hpp: a:copy(src [, {stream = s}]) without Lua: which copies may be asynchronous and
// the sentences for those that may not. On a stream: device <-> device (managed arrays
// count as device memory) and pinned host <-> device, returning at once; a pageable host
// array is refused (the driver stages pageable memory through its own buffer and returns
// only when the copy is done, so the copy would be synchronous anyway), and so is host to
// host (a memmove on the CPU has no stream). Without a stream: the synchronous copy of
// lab/array.hpp, refused during a capture. During a capture a copy on the capture's
// stream is recorded in the graph and reports its arrays.
#pragma once
#include <cuda.h>

#include "lab/array.hpp"
#include "lab/capture.hpp"

namespace warplab::lab {

// a:copy(src): synchronous (lab::copy), refused while `cap` captures.
template <class Dst, class Src>
void copy_now(const Capture& cap, Dst& dst, const Src& src) {
  cap.refuse(CaptureOp::sync_copy, "a:copy(b) without a stream");
  copy(dst, src);
}

// a:copy(src, {stream = s}): queued on `stream` (same type and length as a:copy checks).
void copy_async(Capture& cap, DeviceArray& dst, const DeviceArray& src, CUstream stream);
void copy_async(Capture& cap, DeviceArray& dst, const HostArray& src, CUstream stream);
void copy_async(Capture& cap, HostArray& dst, const DeviceArray& src, CUstream stream);
void copy_async(Capture& cap, HostArray& dst, const HostArray& src, CUstream stream);

// The sentence for a pageable host array in a copy on a stream (exposed for the docs'
// and tests' sake: one wording everywhere).
extern const char* const kPageableOnStream;

}  // namespace warplab::lab
