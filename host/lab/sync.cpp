// sync.cpp: see sync.hpp. The kernel watchdog's wait polls with a backoff from 20 us to
// 2 ms, so a short kernel costs little latency and a long one little CPU; the counted-launch
// watchdog looks every 50 ms.
#include "lab/sync.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lab/counters.hpp"

namespace warplab::lab {
namespace {

// The watchdog, then `wait`, then everything launched so far has finished.
template <class F>
void waited(Run& run, F&& wait) {
  await_gpu(run);
  wait();
  run.faults.since_sync = 0;
  run.streams.settled();
}

// The most recent noted launch whose stream still has work: the default stream's (and the
// blocking streams', which it waits for) when `default_busy`, else one of `busy`.
const LaunchNote& stuck(const Run& run, bool default_busy, const std::vector<const cu::Stream*>& busy) {
  const FaultLog& log = run.faults;
  const unsigned n = std::min<unsigned>(log.since_sync, log.ring.size());
  for (unsigned back = 1; back <= n; ++back) {
    const LaunchNote& note = log.recent(back);
    const CUstream h = note.config.stream;
    for (const cu::Stream* s : busy)
      if (h && s->get() == h) return note;
    if (default_busy && !run.streams.non_blocking(h)) return note;
  }
  return log.recent();
}

}  // namespace

void await_in_flight(Run& run) {
  if (!run.watchdog_event) run.watchdog_event = std::make_unique<cu::Event>(run.context);
  run.watchdog_event->record(nullptr);  // behind everything on the (blocking) default stream
  // Non-blocking streams do not wait for the default stream, nor it for them: each is
  // asked itself, or a kernel stuck there would hang the synchronization that follows.
  std::vector<const cu::Stream*> busy = run.streams.busy();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(run.opts.timeout);
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    busy.erase(std::remove_if(busy.begin(), busy.end(), [](const cu::Stream* s) { return s->query(); }),
               busy.end());
    const bool default_busy = !run.watchdog_event->query();
    if (!default_busy && busy.empty()) break;
    if (std::chrono::steady_clock::now() > deadline) {
      run.timeout_message = timeout_text(stuck(run, default_busy, busy), run.opts.timeout, run.limits());
      run.timed_out = true;
      throw Error(ErrorKind::timeout, run.timeout_message);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
  run.faults.since_sync = 0;  // everything launched so far has finished
  run.streams.settled();
}

void synchronize(Run& run) {
  run.capture.refuse(CaptureOp::synchronize, "cuda.synchronize()");
  const cu::ContextPtr& ctx = run.gpu_context("cuda.synchronize");
  waited(run, [&] { ctx->synchronize(); });
}

void synchronize(Run& run, const cu::Stream& s, const char* what) {
  run.capture.refuse(CaptureOp::synchronize, what);
  waited(run, [&] { s.synchronize(); });
}

void synchronize(Run& run, const cu::Event& e, const char* what) {
  run.capture.refuse(CaptureOp::synchronize, what);
  waited(run, [&] { e.synchronize(); });
}

void synchronize_launched(Run& run) {
  waited(run, [&] { run.context->synchronize(); });
}

bool query(const Run& run, const cu::Stream& s, const char* what) {
  run.capture.refuse(CaptureOp::query, what);
  return s.query();
}

bool query(const Run& run, const cu::Event& e, const char* what) {
  run.capture.refuse(CaptureOp::query, what);
  return e.query();
}

void start_counted_launch_watchdog(double timeout, int exit_code) {
  if (timeout <= 0) return;
  static std::once_flag once;
  std::call_once(once, [timeout, exit_code] {
    // Detached, and it never returns: the process ends with it or without it. The kernel
    // watchdog above covers launches the driver returns from at once.
    std::thread([timeout, exit_code] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const std::string why = CounterSession::overdue(timeout);
        if (why.empty()) continue;
        std::fflush(stdout);
        const std::string line = why + "\n";
        (void)!::write(STDERR_FILENO, line.data(), line.size());
        // The launching thread is blocked inside the driver on a kernel that does not end:
        // nothing can unwind it, so the process ends here, with the watchdog's exit code.
        std::_Exit(exit_code);
      }
    }).detach();
  });
}

}  // namespace warplab::lab
