// timing.hpp: timing GPU work with device events, without Lua: the timed loop shared by
// cuda.bench (a Lua function's work) and k:bench (a kernel's launches, lab/launch.hpp),
// and the statistics of its samples (median, min, max, mean, sample stdev).
// Depends on cu/stream.hpp.
#pragma once
#include <cstddef>
#include <vector>

#include "cu/stream.hpp"

namespace warplab::lab {

// Statistics of timing samples (milliseconds); n >= 1.
struct TimingStats {
  double median = 0, min = 0, max = 0, mean = 0;
  double stdev = 0;  // the sample standard deviation (n - 1); 0 for one sample
  std::size_t n = 0;
};
TimingStats timing_stats(std::vector<double> ms);

// reps runs of body(), each between two events recorded on `stream`; wait(last) waits
// for the last event (the caller's synchronization, with its watchdog); returns each
// run's milliseconds. Inline: nothing but the events between a record and the work.
template <class Body, class Wait>
std::vector<double> time_events(const cu::ContextPtr& ctx, CUstream stream, int reps, Body&& body,
                                Wait&& wait) {
  std::vector<cu::Event> ev;
  ev.reserve(2 * static_cast<std::size_t>(reps));
  for (int i = 0; i < 2 * reps; ++i) ev.emplace_back(ctx);
  for (int i = 0; i < reps; ++i) {
    ev[2 * i].record(stream);
    body();
    ev[2 * i + 1].record(stream);
  }
  wait(ev.back());
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) ms[i] = cu::elapsed_ms(ev[2 * i], ev[2 * i + 1]);
  return ms;
}

}  // namespace warplab::lab
