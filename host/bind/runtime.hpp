// runtime.hpp: per-Lua-state runtime data kept in the Lua registry (as redis keeps its
// per-run state under a named key): the options the program was started with (the one
// options struct, lab/options.hpp) and the device (live or profile) the script works on,
// chosen when the script first needs it. Depends on cu/device.hpp.
#pragma once
#include <lua.hpp>

#include <string>

#include <memory>

#include "bind/fault.hpp"
#include "cu/context.hpp"
#include "cu/device.hpp"
#include "cu/memory.hpp"
#include "cu/occupancy.hpp"
#include "cu/stream.hpp"
#include "lab/options.hpp"
#include "rtc/cache.hpp"

#include <functional>
#include <optional>

namespace warplab::bind {

// The device a state works on, when it is chosen on first use: a script that never
// touches the GPU then never starts the driver (cuInit). The chooser is the program's
// (app/cli/lua_state.cpp: select the device, say the offline note); it may throw.
struct ChosenTarget {
  cu::DeviceSnapshot device;
  bool offline = true;
  std::string offline_reason;
};
using TargetChooser = std::function<ChosenTarget()>;

struct Runtime {
  lab::Options opts;                       // as the command line set them; color also needs a terminal
  cu::DeviceSnapshot target;               // the selected device or profile
  bool offline = true;                     // true when `target` is a profile
  std::string offline_reason;              // why (no driver, no GPU, --profile ...)
  TargetChooser choose_target;             // set until runtime() first chooses the three above
  cu::ContextPtr context;                  // the device's primary context, retained on first use
  cu::PinnedBuffer staging;                // page-locked bounce buffer for large host<->device copies
  FaultLog faults;                         // recent launches, for naming asynchronous faults
  std::optional<cu::DeviceLimits> limits;  // of `target`, read once for launch checks
  std::unique_ptr<rtc::Cache> cache;       // null with --no-cache
  std::unique_ptr<cu::Event> watch_event;  // the watchdog's marker (fault.hpp await_gpu)
  bool timed_out = false;                  // the watchdog fired: the context is stuck
  bool context_lost = false;               // a sticky fault was reported: the context is unusable
  std::string timeout_message;
  // Metatables the launch path tells userdata by, at their registry addresses (udata.hpp).
  const void* kernel_meta = nullptr;
  const void* array_meta = nullptr;
  const void* launch_keys[7] = {};  // the launch table's key strings (launch_table.cpp)
};

// Creates this state's runtime (registry-owned, found through the extra space): the
// options (color only on a terminal), the target, the compile cache. open_state() calls it.
Runtime& create_runtime(lua_State* L, const lab::Options& opts, cu::DeviceSnapshot target, bool offline,
                        std::string offline_reason);
// The runtime of this state; created by open_state(). Chooses the target on first use.
Runtime& runtime(lua_State* L);
// Raises "no CUDA device: <reason>" unless a live device backs this state.
void require_gpu(lua_State* L, const char* what);
// The live device's context, made current; raises like require_gpu when offline.
const cu::ContextPtr& gpu_context(lua_State* L, const char* what);

}  // namespace warplab::bind
