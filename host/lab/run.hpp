// run.hpp: one run of Lua code on one device, without Lua (a script's `run`, a watch
// child, a REPL worker: one per Lua state): the options, the device or profile (given, or
// chosen on first use), its GPU context and limits (read once), the compile cache, the
// launches in flight (fault.hpp), the watchdog's state (sync.hpp), its streams by number
// (stream.hpp) and its stream capture (capture.hpp); and what a run sets up around its
// script.
#pragma once
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/error.hpp"
#include "cu/limits.hpp"
#include "cu/memory.hpp"
#include "cu/stream.hpp"
#include "lab/capture.hpp"
#include "lab/fault.hpp"
#include "lab/module.hpp"
#include "lab/options.hpp"
#include "lab/stream.hpp"
#include "rtc/cache.hpp"
#include "sys/error.hpp"

namespace warplab::lab {

// The device or profile a run works on: `offline` when it is a profile, `offline_reason`
// says why (no driver, no GPU, --profile ...).
struct Target {
  cu::DeviceSnapshot device;
  bool offline = true;
  std::string offline_reason;
};
// Chooses the target when the run first needs it, so that a script that never touches the
// GPU never starts the driver (cuInit). The program's (app/cli/lua_state.cpp: select the
// device, say the offline note); it may throw, and is then asked again on the next use.
using TargetChooser = std::function<Target()>;

struct Run {
  // A run on `target`. Opens the compile cache (unless --no-cache); color only when stdout
  // is a terminal (stdout_color).
  Run(const Options& opts, Target target);
  // The same with the target chosen by `choose` on the first call that needs it.
  Run(const Options& opts, TargetChooser choose);

  Options opts;                               // as the command line set them
  cu::ContextPtr context;                     // the device's primary context, retained on first use
  cu::PinnedBuffer staging;                   // page-locked bounce buffer for large host<->device copies
  FaultLog faults;                            // recent launches, for naming asynchronous faults
  std::unique_ptr<rtc::Cache> cache;          // null with --no-cache
  std::unique_ptr<cu::Event> watchdog_event;  // the kernel watchdog's marker (sync.hpp)
  bool timed_out = false;                     // the watchdog fired: the context is stuck
  bool context_lost = false;                  // a sticky fault was reported: the context is unusable
  std::string timeout_message;                // the watchdog's sentence, once it fired
  StreamBook streams;                         // the run's streams by number (fault notes, watchdog)
  Capture capture;                            // cuda.graph's stream capture, while one runs

  // The selected device or profile, whether it is a profile and why; the first of these
  // calls chooses it when a chooser was given. limits() chooses inside its own first-use
  // branch, so the launch path pays no extra branch for it. lost() never chooses.
  const cu::DeviceSnapshot& target() {
    if (choose_) [[unlikely]]
      choose();
    return target_.device;
  }
  bool offline() {
    if (choose_) [[unlikely]]
      choose();
    return target_.offline;
  }
  const std::string& offline_reason() {
    if (choose_) [[unlikely]]
      choose();
    return target_.offline_reason;
  }
  // The device limits of target(), read once (the launch checks, occupancy, offline kernels).
  const cu::DeviceLimits& limits() {
    if (!limits_) [[unlikely]]
      limits_ = cu::device_limits(target());
    return *limits_;
  }
  // Throws Error no_gpu "no CUDA device: <what> needs a GPU (<offline_reason>)" when offline.
  void require_gpu(const char* what);
  // The live device's context, retained on first use and made current; throws like
  // require_gpu when offline.
  const cu::ContextPtr& gpu_context(const char* what);
  // True once the GPU context is unusable: a sticky fault was reported or the watchdog
  // fired (a kernel still spins). Only a new process gets a new context.
  bool lost() const { return context_lost || timed_out; }
  // Notes a launch that runs now in `faults` (fault.hpp): `what` (a kernel's name, or
  // where a graph was captured), its configuration and limits, its stream's number (which
  // marks a non-blocking stream busy for the watchdog) and the script line that made it.
  // Plain copies, no formatting: every launch pays this.
  LaunchNote& note_launch(const std::string& what, const cu::LaunchConfig& c, const cu::KernelLimits& k,
                          const Where& where) {
    LaunchNote& n = faults.note(what, c, k);
    n.stream = streams.note(c.stream);  // 0 for the default stream
    if (where.line > 0) {
      std::memcpy(n.source, where.source, sizeof n.source);
      n.line = where.line;
    }
    return n;
  }
  // The sentence for e: for an asynchronous fault (the context is then lost) it names the
  // launches in flight (fault.hpp fault_text); otherwise e's own.
  std::string describe(const cu::Error& e);
  // lab::build (module.hpp) with this run's compile cache and, unless offline, its context;
  // builder() is the same as a Builder, for a recompile (module_reload.hpp).
  ModuleRef build(ModuleSpec spec);
  Builder builder() {
    return [this](ModuleSpec s) { return build(std::move(s)); };
  }

 private:
  void choose();  // runs choose_ and keeps its answer (run.cpp)

  TargetChooser choose_;  // set until the target is chosen
  Target target_;
  std::optional<cu::DeviceLimits> limits_;
};

// ---- around a run's script ----------------------------------------------------------------

// The folder of the running program ("" when /proc/self/exe cannot be read).
std::string exe_dir();
// The directories holding lua/warplab/*.lua, most specific first: $WARPLAB_LUA_DIR, then
// next to the program (build tree, installed layout), then `source_dir`/lua; only those
// that have a warplab/ folder, made canonical.
std::vector<std::string> lua_library_dirs(const std::string& source_dir);
// The compile cache in its default folder, or null when `opts.cache` is off; a cache
// warning (unusable folder) goes to stderr once per process.
std::unique_ptr<rtc::Cache> open_cache(const Options& opts);
// Color on stdout: asked for, stdout is a terminal, and NO_COLOR is not set.
bool stdout_color(const Options& opts);

}  // namespace warplab::lab
