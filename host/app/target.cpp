// target.cpp: choosing the device a command works on: a profile, a live GPU, or the
// default shipped profile when offline and the command allows it.
#include <iostream>

#include "app/cli.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/profile.hpp"
#include "bind/state.hpp"

namespace warplab::app {

cu::DeviceSnapshot select_target(const Globals& g, bool fallback) {
  if (!g.profile.empty()) return cu::load_profile(g.profile);
  std::string why;
  if (cu::driver_available(&why)) {
    if (cu::device_count() > 0) return cu::snapshot_device(g.device);
    why = "no CUDA device: the driver found no GPU";
  }
  const std::string dflt = cu::default_profile_name();
  if (!fallback || dflt.empty())
    throw Failure(kNoDevice, why + " (use --profile " + (dflt.empty() ? "FILE" : dflt) +
                                 " to work from a captured device)");
  // The fallback profile stands in for device 0 only: another index asked for offline is
  // an error, not a silent run on the profile.
  if (g.device != 0)
    throw Failure(kNoDevice, "device " + std::to_string(g.device) + " does not exist: " + why +
                                 " (offline, the profile '" + dflt + "' stands in for device 0 only)");
  if (!g.quiet)
    std::cerr << "warplab: " << why << "; continuing offline with profile '" << dflt << "'\n";
  return cu::load_profile(dflt);
}

int exit_code_for(const cu::Error& e) {
  switch (e.code()) {
    case CUDA_SUCCESS: return kBadInput;  // a profile or input problem, not the driver
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_NOT_INITIALIZED: return kNoDevice;
    default: return kCudaError;
  }
}

bind::StatePtr open_lua_state(const Globals& g, bool check, const Globals* notes) {
  // CLI11's range check lets NaN through (every comparison with it is false).
  if (!(g.timeout >= 0))
    throw Failure(kUsage, "--timeout must be a number of seconds >= 0 (0: none), not nan");
  cu::DeviceSnapshot target = select_target(notes ? *notes : g, /*fallback=*/true);
  const bool offline = !target.live();
  std::string reason;
  if (!g.profile.empty()) reason = "working from profile '" + g.profile + "'";
  else if (!cu::driver_available(&reason)) {}
  else if (offline) reason = "no CUDA device: the driver found no GPU";
  bind::RuntimeOptions opts;
  opts.device = g.device;
  opts.profile = g.profile;
  opts.check = check;
  opts.sync = g.sync;
  opts.quiet = g.quiet;
  opts.color = !g.no_color;
  opts.timeout = g.timeout;
  opts.cache = !g.no_cache;
  return bind::open_state(opts, std::move(target), offline, reason);
}

}  // namespace warplab::app
