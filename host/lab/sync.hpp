// sync.hpp: waiting for the GPU, without Lua, and both watchdogs (--timeout SECONDS).
// cuda.synchronize, a stream's, an event's, and --sync after each launch wait behind the
// kernel watchdog, which before a call that blocks on the GPU polls an event behind the
// work in flight on the legacy default stream and every busy non-blocking stream
// (StreamBook) and, past the deadline, gives up with the deadlock verdict (fault.hpp
// timeout_text) as an Error of kind timeout. The counted-launch watchdog is a thread: a
// counted launch blocks inside the driver, where the kernel watchdog cannot reach it. Waits
// and queries are refused during a stream capture (capture.hpp: nothing has run yet).
#pragma once
#include "cu/stream.hpp"
#include "lab/run.hpp"
#include "sys/error.hpp"

namespace warplab::lab {

void await_in_flight(Run& run);  // await_gpu's waiting part (sync.cpp)

// The watchdog alone, before any call that blocks on the GPU (an array copy): waits for
// the work in flight; returns at once without --timeout, without a context or with
// nothing launched since the last synchronization. Past the deadline it sets
// run.timed_out and run.timeout_message ("kernel K launched at FILE:LINE did not finish
// within T s: probable deadlock (...)", naming the grid against the co-resident capacity)
// and throws that sentence as an Error of kind timeout.
inline void await_gpu(Run& run) {
  // During a capture the blocking calls are refused, and the watchdog's own queries would
  // be calls a capture does not allow.
  if (run.opts.timeout > 0 && run.faults.since_sync != 0 && run.context && !run.capture.active()) [[unlikely]]
    await_in_flight(run);
}

// cuda.synchronize: all work of the run's context (a GPU is needed: Run::gpu_context).
// Each synchronize runs the watchdog first, then waits; the launches noted until then are
// done (an asynchronous fault is the driver's cu::Error: Run::describe names its launch).
void synchronize(Run& run);
// s:synchronize(), ev:synchronize() (and the last event of a timed loop); `what` names the
// call in the refusal during a capture.
void synchronize(Run& run, const cu::Stream& s, const char* what = "s:synchronize()");
void synchronize(Run& run, const cu::Event& e, const char* what = "e:synchronize()");
// --sync after a launch: all work of the run's context, which the launch made current.
void synchronize_launched(Run& run);

// s:query(), e:query(): whether the work before it has finished (refused during a capture;
// `what` names the call).
bool query(const Run& run, const cu::Stream& s, const char* what = "s:query()");
bool query(const Run& run, const cu::Event& e, const char* what = "e:query()");

// The counted-launch watchdog: with timeout > 0, a thread that ends the process (the
// sentence on stderr, then std::_Exit(exit_code): the front end's code for a timeout) once
// a counted launch has been inside the driver for longer than the timeout per replay pass
// (CounterSession::overdue: CUPTI replays a counted launch to its end inside the launch
// call, so the launching thread cannot unwind). Once per process; a no-op without a timeout.
void start_counted_launch_watchdog(double timeout, int exit_code);

}  // namespace warplab::lab
