// stream.cpp: Stream and Event, over cuStream* and cuEvent*. Depends on cu/stream.hpp,
// cu/driver.hpp, cu/error.hpp.
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

Event::Event(ContextPtr ctx) : ctx_(std::move(ctx)) {
  ctx_->make_current();
  WL_CU_CHECK(api().cuEventCreate(&e_, CU_EVENT_DEFAULT), ctx_->label());
}

Event::Event(Event&& o) noexcept : ctx_(std::move(o.ctx_)), e_(std::exchange(o.e_, nullptr)) {}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    destroy();
    ctx_ = std::move(o.ctx_);
    e_ = std::exchange(o.e_, nullptr);
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
  end.synchronize();
  float ms = 0.0f;
  WL_CU_CHECK(api().cuEventElapsedTime(&ms, start.get(), end.get()), "event pair");
  return ms;
}

}  // namespace warplab::cu
