// stream.hpp: CUDA streams and events, move-only, each holding its context. Events time
// work on the device (cuEventElapsedTime), never with host clocks.
// Depends on cu/context.hpp.
#pragma once
#include <cuda.h>

#include "cu/context.hpp"

namespace warplab::cu {

class Stream {
 public:
  Stream() = default;  // empty
  // cuStreamCreate; non-blocking by default, so it does not serialize with stream 0.
  explicit Stream(ContextPtr ctx, bool non_blocking = true);
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { destroy(); }

  void destroy() noexcept;  // idempotent
  bool valid() const noexcept { return s_ != nullptr; }
  CUstream get() const noexcept { return s_; }
  const ContextPtr& context() const noexcept { return ctx_; }

  // Blocks until the stream's work is done; an asynchronous fault surfaces here as a
  // cu::Error with its code (e.g. CUDA_ERROR_ILLEGAL_ADDRESS).
  void synchronize() const;
  // True when all work is done, false while some is pending; throws on a fault.
  bool query() const;
  // Later work on this stream waits for `event` (recorded on any stream).
  void wait(CUevent event) const;

 private:
  ContextPtr ctx_;
  CUstream s_ = nullptr;
};

class Event {
 public:
  Event() = default;  // empty
  // cuEventCreate with default flags (timing enabled).
  explicit Event(ContextPtr ctx);
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { destroy(); }

  void destroy() noexcept;
  bool valid() const noexcept { return e_ != nullptr; }
  CUevent get() const noexcept { return e_; }

  // Records the event on `stream` (nullptr: the legacy default stream).
  void record(CUstream stream = nullptr);
  void synchronize() const;
  bool query() const;  // true once the recorded work is complete

 private:
  ContextPtr ctx_;
  CUevent e_ = nullptr;
};

// Milliseconds between two recorded events (waits for `end`). Resolution ~0.5 us.
float elapsed_ms(const Event& start, const Event& end);

}  // namespace warplab::cu
