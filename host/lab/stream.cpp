// stream.cpp: see stream.hpp.
#include "lab/stream.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "lab/array.hpp"  // lab::num
#include "lab/run.hpp"
#include "sys/error.hpp"

namespace warplab::lab {

int check_priority(double p, const cu::PriorityRange& r) {
  const std::string range =
      std::to_string(r.greatest) + " (highest) to " + std::to_string(r.least) + " (lowest)";
  if (!(p == std::floor(p)) || std::isinf(p))  // NaN fails the comparison
    throw Error(ErrorKind::bad_input, "cuda.stream: priority must be an integer from " + range + ", got " +
                                          (std::isnan(p) ? std::string("nan") : num(p)));
  if (p > r.least || p < r.greatest)
    throw Error(ErrorKind::bad_input, "cuda.stream: priority " + num(p) +
                                          " is outside this device's range, " + range +
                                          "; a smaller number runs first");
  return static_cast<int>(p);
}

int StreamBook::add(const cu::Stream& s, bool non_blocking) {
  entries_.push_back({&s, ++next_, non_blocking, false});
  return next_;
}

void StreamBook::remove(const cu::Stream& s) noexcept {
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.stream == &s; }),
      entries_.end());
}

std::vector<const cu::Stream*> StreamBook::busy() const {
  std::vector<const cu::Stream*> out;
  for (const Entry& e : entries_)
    if (e.busy && e.stream->valid()) out.push_back(e.stream);
  return out;
}

void free_stream(Run& run, cu::Stream& s) {
  run.capture.check_stream_free(s.get(), "s:free()");
  run.streams.remove(s);
  s.destroy();
}

bool free_stream_quietly(Run& run, cu::Stream& s) noexcept {
  run.streams.remove(s);
  try {
    run.capture.check_stream_free(s.get(), "s:free()");
  } catch (const std::exception&) {
    return false;
  }
  s.destroy();
  return true;
}

void record_event(Run& run, cu::Event& e, CUstream s) {
  run.capture.note_record(e.get(), s, "e:record(s)");
  e.record(s);
}

void wait_event(Run& run, const cu::Stream& s, const cu::Event& e) {
  run.capture.check_wait(s.get(), e.get(), "s:wait(e)");
  s.wait(e);
}

}  // namespace warplab::lab
