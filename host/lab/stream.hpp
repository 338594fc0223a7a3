// stream.hpp: a run's streams without Lua: cuda.stream's priority checked against the
// device's range (cuCtxGetStreamPriorityRange; the driver would clamp an out-of-range one
// silently), with the sentence that gives the range and which end runs first; the
// StreamBook, the run's streams by number, so a fault note and the watchdog can name the
// stream of a launch ("on stream 2") and the watchdog can wait for the streams that do not
// synchronize with the legacy default stream (non-blocking ones); and what a stream capture
// decides of a stream's and an event's calls (s:free, e:record(s), s:wait(e)).
#pragma once
#include <cuda.h>

#include <string>
#include <vector>

#include "cu/stream.hpp"

namespace warplab::lab {

struct Run;

// The priority `p` as the driver takes it. Throws Error (bad_input) unless p is an integer within
// r: "cuda.stream: priority 3 is outside this device's range, -5 (highest) to 0 (lowest)",
// "cuda.stream: priority must be an integer from -5 (highest) to 0 (lowest), got nan".
int check_priority(double p, const cu::PriorityRange& r);

// The streams a run made, numbered 1, 2, ... in the order they were made. A front end adds
// each stream it makes and removes it when it destroys it (the book keeps a pointer, not
// the stream). A launch notes its stream here (note): its number for the fault note, and
// a non-blocking stream is marked busy until the next synchronization of everything.
class StreamBook {
 public:
  // Registers `s` (non-blocking or not); returns its number.
  int add(const cu::Stream& s, bool non_blocking);
  // Forgets `s`; a stream the book does not hold is ignored.
  void remove(const cu::Stream& s) noexcept;
  // The number of the stream whose handle is `h`, 0 for the legacy default stream (nullptr)
  // or a stream the book does not hold; marks a non-blocking one busy. A launch on a stream
  // asks this: a linear search over the run's few streams, nothing allocated.
  int note(CUstream h) noexcept {
    if (!h) return 0;
    for (Entry& e : entries_)
      if (e.stream->get() == h) {
        e.busy = e.busy || e.non_blocking;
        return e.number;
      }
    return 0;
  }
  // True when `h` is a non-blocking stream of the book.
  bool non_blocking(CUstream h) const noexcept {
    for (const Entry& e : entries_)
      if (h && e.stream->get() == h) return e.non_blocking;
    return false;
  }
  // The non-blocking streams with work noted since the last synchronization of everything
  // (the watchdog waits for them as well as for the legacy default stream).
  std::vector<const cu::Stream*> busy() const;
  // Everything noted so far has finished (cuda.synchronize, the watchdog's wait).
  void settled() noexcept {
    for (Entry& e : entries_) e.busy = false;
  }

 private:
  struct Entry {
    const cu::Stream* stream;
    int number;
    bool non_blocking;
    bool busy;
  };
  std::vector<Entry> entries_;
  int next_ = 0;
};

// ---- a stream's and an event's calls in a run, as a capture allows them (capture.hpp) -----

// s:free(): refused while s is part of a running capture (its own stream, or one that
// joined it); otherwise out of the book, destroyed.
void free_stream(Run& run, cu::Stream& s);
// A stream's __gc: the same, but one that cannot raise: a stream a capture still uses is
// left to the process's exit (false), not destroyed under it.
bool free_stream_quietly(Run& run, cu::Stream& s) noexcept;
// e:record(s): checked as work on s (a stream in the capture, while one runs), e noted as
// recorded inside the capture, then recorded.
void record_event(Run& run, cu::Event& e, CUstream s);
// s:wait(e): a stream in the capture may only wait for an event recorded inside it; a
// stream outside may, and so joins the capture. Then s waits.
void wait_event(Run& run, const cu::Stream& s, const cu::Event& e);

}  // namespace warplab::lab
