// stream.cpp: Stream and Event, over cuStream* and cuEvent*.
#include "cu/stream.hpp"

#include <utility>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {
namespace {

// What cuStreamQuery and cuEventQuery answer: true when the work is done, false while some
// is pending; anything else (an asynchronous fault) throws.
bool done(CUresult rc, const char* call, const char* object) {
  if (rc == CUDA_ERROR_NOT_READY) return false;
  if (rc != CUDA_SUCCESS) throw Error(rc, call, object);
  return true;
}

}  // namespace

void StreamTraits::destroy(CUstream s) noexcept { api().cuStreamDestroy(s); }
void EventTraits::destroy(CUevent e) noexcept { api().cuEventDestroy(e); }

Stream::Stream(ContextPtr ctx, bool non_blocking) {
  ctx->make_current();
  CUstream s = nullptr;
  WL_CU_CHECK(api().cuStreamCreate(&s, non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT),
              ctx->label());
  h_ = Handle<StreamTraits>(std::move(ctx), s);
}

Stream::Stream(ContextPtr ctx, bool non_blocking, int priority) {
  ctx->make_current();
  CUstream s = nullptr;
  WL_CU_CHECK(api().cuStreamCreateWithPriority(&s, non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT,
                                               priority),
              ctx->label() + ", priority " + std::to_string(priority));
  h_ = Handle<StreamTraits>(std::move(ctx), s);
}

PriorityRange stream_priorities(const ContextPtr& ctx) {
  ctx->make_current();
  PriorityRange r;
  WL_CU_CHECK(api().cuCtxGetStreamPriorityRange(&r.least, &r.greatest), ctx->label());
  return r;
}

void Stream::synchronize() const {
  const CUstream s = h_.live("stream");
  WL_CU_CHECK(api().cuStreamSynchronize(s), "stream");
}

bool Stream::query() const {
  const CUstream s = h_.live("stream");
  return done(api().cuStreamQuery(s), "cuStreamQuery", "stream");
}

void Stream::wait(CUevent event) const {
  const CUstream s = h_.live("stream");
  WL_CU_CHECK(api().cuStreamWaitEvent(s, event, 0), "stream");
}

void Stream::wait(const Event& event) const {
  if (!event.valid()) throw_destroyed("event");
  wait(event.get());
}

int Stream::priority() const {
  const CUstream s = h_.live("stream");
  int p = 0;
  WL_CU_CHECK(api().cuStreamGetPriority(s, &p), "stream");
  return p;
}

Event::Event(ContextPtr ctx, bool timing) : timing_(timing) {
  ctx->make_current();
  CUevent e = nullptr;
  WL_CU_CHECK(api().cuEventCreate(&e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), ctx->label());
  h_ = Handle<EventTraits>(std::move(ctx), e);
}

void Event::record(CUstream stream) {
  const CUevent e = h_.live("event");
  WL_CU_CHECK(api().cuEventRecord(e, stream), "event");
}

void Event::synchronize() const {
  const CUevent e = h_.live("event");
  WL_CU_CHECK(api().cuEventSynchronize(e), "event");
}

bool Event::query() const {
  const CUevent e = h_.live("event");
  return done(api().cuEventQuery(e), "cuEventQuery", "event");
}

float elapsed_ms(const Event& start, const Event& end) {
  if (!start.valid() || !end.valid()) throw_destroyed("event");
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
