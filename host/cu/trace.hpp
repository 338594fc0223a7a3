// trace.hpp: where a process's start-up time goes. With WARPLAB_STARTUP_TRACE=1 in the
// environment each stage (the dynamic loader before main, NVRTC, dlopen of libcuda, cuInit,
// the context, the Lua state, the script) is one line on stderr as it ends; without it a
// stage costs one branch. In cu/ because the driver's stages are the ones that matter and
// every layer may mark its own. No Lua, no driver.
#pragma once
#include <chrono>

namespace warplab::cu {

// True when WARPLAB_STARTUP_TRACE is set to something other than "" or "0" (read once).
bool tracing();

// "warplab: trace   12.4 ms  cuInit (+9.8 ms)": the time since the process's first mark
// and the stage's own duration (since `since`, or since the previous mark when omitted).
void trace(const char* stage);
void trace(const char* stage, std::chrono::steady_clock::time_point since);

// Marks the process's start: the first line says how much CPU time the process used
// before main (exec and the dynamic loader: libnvrtc, libstdc++, ...). Called by main.
void trace_main();
// In a forked child: its times count from here, not from the parent's start.
void trace_reset(const char* stage);

// A stage as a scope: marks `stage` with its duration when it ends (when tracing).
class TraceScope {
 public:
  explicit TraceScope(const char* stage) : stage_(stage), t0_(std::chrono::steady_clock::now()) {}
  ~TraceScope() {
    if (tracing()) trace(stage_, t0_);
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  const char* stage_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace warplab::cu
