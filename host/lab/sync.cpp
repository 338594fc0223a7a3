// sync.cpp: see sync.hpp. The wait polls with a backoff from 20 us to 2 ms, so a short
// kernel costs little latency and a long one little CPU. Depends on lab/sync.hpp.
#include "lab/sync.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

namespace warplab::lab {
namespace {

// The watchdog, then `wait`, then everything launched so far has finished.
template <class F>
void waited(Run& run, F&& wait) {
  await_gpu(run);
  wait();
  run.faults.since_sync = 0;
}

}  // namespace

void await_in_flight(Run& run) {
  if (!run.watch_event) run.watch_event = std::make_unique<cu::Event>(run.context);
  run.watch_event->record(nullptr);  // behind everything on the (blocking) default stream
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::duration<double>(run.opts.timeout);
  auto pause = std::chrono::microseconds(20);
  while (!run.watch_event->query()) {
    if (std::chrono::steady_clock::now() > deadline) {
      run.timeout_message = timeout_text(run.faults.recent(), run.opts.timeout, run.limits());
      run.timed_out = true;
      throw Timeout(run.timeout_message);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
  run.faults.since_sync = 0;  // everything launched so far has finished
}

void synchronize(Run& run) {
  const cu::ContextPtr& ctx = run.gpu_context("cuda.synchronize");
  waited(run, [&] { ctx->synchronize(); });
}

void synchronize(Run& run, const cu::Stream& s) {
  waited(run, [&] { s.synchronize(); });
}

void synchronize(Run& run, const cu::Event& e) {
  waited(run, [&] { e.synchronize(); });
}

void synchronize_launched(Run& run) {
  waited(run, [&] { run.context->synchronize(); });
}

}  // namespace warplab::lab
