// timing.hpp: timing GPU work with device events, without Lua: the timed loop shared by
// cuda.bench (a Lua function's work) and k:bench (a kernel's launches, lab/launch.hpp).
// Their statistics are warplab.stats.summary's, the one statistics path
// (bind/bind_stream.cpp push_timing).
// Depends on cu/stream.hpp.
#pragma once
#include <cstddef>
#include <vector>

#include "cu/stream.hpp"

namespace warplab::lab {

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
