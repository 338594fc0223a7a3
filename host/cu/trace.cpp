// trace.cpp: the start-up trace (trace.hpp): one line a stage on stderr, written with one
// write(2) so lines from a watcher and its runs never interleave mid-line. POSIX only.
#include "cu/trace.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace warplab::cu {
namespace {

using Clock = std::chrono::steady_clock;

struct TraceState {
  std::mutex mu;
  bool started = false;
  Clock::time_point first, last;
};

TraceState& state() {
  static TraceState s;
  return s;
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void line(const char* text) {
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, text, std::strlen(text));
}

}  // namespace

bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("WARPLAB_STARTUP_TRACE");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

void trace(const char* stage, Clock::time_point since) {
  if (!tracing()) return;
  TraceState& s = state();
  const Clock::time_point now = Clock::now();
  const std::lock_guard<std::mutex> lock(s.mu);
  if (!s.started) {
    s.started = true;
    s.first = since;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "warplab: trace [%d] %8.2f ms  %s (+%.2f ms)\n",
                static_cast<int>(::getpid()), ms(now - s.first), stage, ms(now - since));
  s.last = now;
  line(buf);
}

void trace(const char* stage) {
  if (!tracing()) return;
  Clock::time_point since;
  {
    TraceState& s = state();
    const std::lock_guard<std::mutex> lock(s.mu);
    since = s.started ? s.last : Clock::now();
  }
  trace(stage, since);
}

void trace_main() {
  if (!tracing()) return;
  // The CPU time spent before main: exec, the dynamic loader mapping and relocating
  // libnvrtc, libstdc++ and the rest, static constructors. (Wall time before main is not
  // knowable from inside; the CPU time is its lower bound and most of it.)
  timespec cpu{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "warplab: trace [%d] CPU time before main: %.2f ms (exec, dynamic loading)\n",
                static_cast<int>(::getpid()), cpu.tv_sec * 1e3 + cpu.tv_nsec / 1e6);
  line(buf);
  trace("main", Clock::now());
}

void trace_reset(const char* stage) {
  if (!tracing()) return;
  {
    TraceState& s = state();
    const std::lock_guard<std::mutex> lock(s.mu);
    s.started = false;
  }
  trace(stage, Clock::now());
}

}  // namespace warplab::cu
