// stream.hpp: CUDA streams (with a priority from the device's range) and events (timed,
// or made without timing for pure ordering), each owned through cu::Handle (move-only,
// holding its context). Events time work on the device (cuEventElapsedTime), never with
// host clocks.
#pragma once
#include <cuda.h>

#include "cu/context.hpp"
#include "cu/handle.hpp"

namespace warplab::cu {

class Event;

// cuCtxGetStreamPriorityRange: `least` is the lowest priority (0), `greatest` the highest,
// a smaller number (-5 on an H100): work on a stream of higher priority is scheduled first.
struct PriorityRange {
  int least = 0, greatest = 0;
  bool contains(int p) const noexcept { return p <= least && p >= greatest; }
};
PriorityRange stream_priorities(const ContextPtr& ctx);

struct StreamTraits {
  using Raw = CUstream;
  static void destroy(CUstream s) noexcept;  // cuStreamDestroy
};

class Stream {
 public:
  Stream() = default;  // empty
  // cuStreamCreate; non-blocking by default, so it does not serialize with stream 0.
  explicit Stream(ContextPtr ctx, bool non_blocking = true);
  // cuStreamCreateWithPriority. The driver clamps a priority outside the device's range
  // silently; callers check it first (lab::check_priority says which range).
  Stream(ContextPtr ctx, bool non_blocking, int priority);

  void destroy() noexcept { h_.release(); }  // idempotent
  bool valid() const noexcept { return h_.valid(); }
  CUstream get() const noexcept { return h_.get(); }
  const ContextPtr& context() const noexcept { return h_.context(); }

  // Blocks until the stream's work is done; an asynchronous fault surfaces here as a
  // cu::Error with its code (e.g. CUDA_ERROR_ILLEGAL_ADDRESS).
  void synchronize() const;
  // True when all work is done, false while some is pending; throws on a fault.
  bool query() const;
  // Later work on this stream waits for `event` (recorded on any stream).
  void wait(CUevent event) const;
  void wait(const Event& event) const;
  // The priority the driver gave the stream (cuStreamGetPriority).
  int priority() const;

 private:
  Handle<StreamTraits> h_;
};

struct EventTraits {
  using Raw = CUevent;
  static void destroy(CUevent e) noexcept;  // cuEventDestroy
};

class Event {
 public:
  Event() = default;  // empty
  // cuEventCreate: with timing (the default), or with CU_EVENT_DISABLE_TIMING, which makes
  // recording and waiting cheaper when the event only orders work between streams.
  explicit Event(ContextPtr ctx, bool timing = true);

  void destroy() noexcept { h_.release(); }  // idempotent
  bool valid() const noexcept { return h_.valid(); }
  bool timing() const noexcept { return timing_; }
  CUevent get() const noexcept { return h_.get(); }

  // Records the event on `stream` (nullptr: the legacy default stream).
  void record(CUstream stream = nullptr);
  void synchronize() const;
  bool query() const;  // true once the recorded work is complete

 private:
  Handle<EventTraits> h_;
  bool timing_ = true;
};

// Milliseconds between two recorded events (waits for `end`). Resolution ~0.5 us. An event
// made without timing, or one never recorded, is refused with one sentence (the driver
// would say "invalid handle").
float elapsed_ms(const Event& start, const Event& end);

}  // namespace warplab::cu
