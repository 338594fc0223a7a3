// timing.hpp: timing GPU work with device events, without Lua: reps intervals, each
// between two events recorded on one stream, for cuda.bench (bind times a Lua function's
// work between start and stop) and k:bench (lab/launch.hpp bench); both refused during a
// stream capture, here. Their statistics are warplab.stats.summary's, the one statistics
// path.
#pragma once
#include <cstddef>
#include <vector>

#include "cu/stream.hpp"
#include "lab/sync.hpp"

namespace warplab::lab {

class EventTimes {
 public:
  // Timing needs the work to run now, and a capture only records it: `who` ("cuda.bench",
  // "k:bench") is refused during one (capture.hpp CaptureOp::bench).
  static void refuse_in_capture(const Run& run, const char* who) {
    run.capture.refuse(CaptureOp::bench, who);
  }
  // Refused during a capture, then needs a GPU (Run::gpu_context: no_gpu offline, naming
  // `who`); creates the 2 * reps events first, so nothing but a record lies between an
  // interval's event and its work.
  EventTimes(Run& run, CUstream stream, int reps, const char* who) : stream_(stream) {
    refuse_in_capture(run, who);
    const cu::ContextPtr& ctx = run.gpu_context(who);
    ev_.reserve(2 * static_cast<std::size_t>(reps));
    for (int i = 0; i < 2 * reps; ++i) ev_.emplace_back(ctx);
  }
  void start(int i) { ev_[2 * i].record(stream_); }
  void stop(int i) { ev_[2 * i + 1].record(stream_); }
  // Waits for the last event (synchronize: behind the watchdog), then each interval's ms.
  std::vector<double> ms(Run& run) {
    synchronize(run, ev_.back());
    std::vector<double> out(ev_.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = cu::elapsed_ms(ev_[2 * i], ev_[2 * i + 1]);
    return out;
  }

 private:
  CUstream stream_;
  std::vector<cu::Event> ev_;
};

}  // namespace warplab::lab
