// stream.cpp: Stream and Event, over cuStream* and cuEvent*.
#include "cu/stream.hpp"

#include <utility>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

void require(bool ok, const char* what) {
  if (!ok) throw Error(std::string("use of a destroyed ") + what);
}

}  // namespace

Stream::Stream(ContextPtr ctx, bool non_blocking) : ctx_(std::move(ctx)) {
  ctx_->make_current();
  WL_CU_CHECK(api().cuStreamCreate(&s_, non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT),
              ctx_->label());
}

Stream::Stream(ContextPtr ctx, bool non_blocking, int priority) : ctx_(std::move(ctx)) {
  ctx_->make_current();
  WL_CU_CHECK(api().cuStreamCreateWithPriority(&s_, non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT,
                                               priority),
              ctx_->label() + ", priority " + std::to_string(priority));
}

PriorityRange stream_priorities(const ContextPtr& ctx) {
  ctx->make_current();
  PriorityRange r;
  WL_CU_CHECK(api().cuCtxGetStreamPriorityRange(&r.least, &r.greatest), ctx->label());
  return r;
}

Stream::Stream(Stream&& o) noexcept : ctx_(std::move(o.ctx_)), s_(std::exchange(o.s_, nullptr)) {}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    destroy();
    ctx_ = std::move(o.ctx_);
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

void Stream::destroy() noexcept {
  // Errors ignored: a destructor must not throw (see memory.cpp).
  if (s_ && driver_available()) {
    api().cuCtxSetCurrent(ctx_->get());
    api().cuStreamDestroy(s_);
  }
  s_ = nullptr;
  ctx_.reset();
}

void Stream::synchronize() const {
  require(s_, "stream");
  WL_CU_CHECK(api().cuStreamSynchronize(s_), "stream");
}

bool Stream::query() const {
  require(s_, "stream");
  const CUresult rc = api().cuStreamQuery(s_);
  if (rc == CUDA_ERROR_NOT_READY) return false;
  if (rc != CUDA_SUCCESS) throw Error(rc, "cuStreamQuery", "stream");
  return true;
}

void Stream::wait(CUevent event) const {
  require(s_, "stream");
  WL_CU_CHECK(api().cuStreamWaitEvent(s_, event, 0), "stream");
}

void Stream::wait(const Event& event) const {
  require(event.valid(), "event");
  wait(event.get());
}

int Stream::priority() const {
  require(s_, "stream");
  int p = 0;
  WL_CU_CHECK(api().cuStreamGetPriority(s_, &p), "stream");
  return p;
}

Event::Event(ContextPtr ctx, bool timing) : ctx_(std::move(ctx)), timing_(timing) {
  ctx_->make_current();
  WL_CU_CHECK(api().cuEventCreate(&e_, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), ctx_->label());
}

Event::Event(Event&& o) noexcept
    : ctx_(std::move(o.ctx_)), e_(std::exchange(o.e_, nullptr)), timing_(o.timing_) {}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    destroy();
    ctx_ = std::move(o.ctx_);
    e_ = std::exchange(o.e_, nullptr);
    timing_ = o.timing_;
  }
  return *this;
}

void Event::destroy() noexcept {
  if (e_ && driver_available()) {
    api().cuCtxSetCurrent(ctx_->get());
    api().cuEventDestroy(e_);
  }
  e_ = nullptr;
  ctx_.reset();
}

void Event::record(CUstream stream) {
  require(e_, "event");
  WL_CU_CHECK(api().cuEventRecord(e_, stream), "event");
}

void Event::synchronize() const {
  require(e_, "event");
  WL_CU_CHECK(api().cuEventSynchronize(e_), "event");
}

bool Event::query() const {
  require(e_, "event");
  const CUresult rc = api().cuEventQuery(e_);
  if (rc == CUDA_ERROR_NOT_READY) return false;
  if (rc != CUDA_SUCCESS) throw Error(rc, "cuEventQuery", "event");
  return true;
}

float elapsed_ms(const Event& start, const Event& end) {
  require(start.valid() && end.valid(), "event");
  if (!start.timing() || !end.timing())
    throw Error("an event made without timing cannot be timed: make both events with timing (the default)");
  end.synchronize();
  float ms = 0.0f;
  const CUresult rc = api().cuEventElapsedTime(&ms, start.get(), end.get());
  // Both handles are live (checked above): the driver's "invalid handle" means that one of
  // the events was never recorded.
  if (rc == CUDA_ERROR_INVALID_HANDLE)
    throw Error(
        "the time between two events needs both recorded first: call e:record() on each (before and "
        "after the work), then e1:elapsed(e2)");
  if (rc != CUDA_SUCCESS) throw Error(rc, "cuEventElapsedTime", "event pair");
  return ms;
}

}  // namespace warplab::cu
