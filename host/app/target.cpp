// target.cpp: choosing the device a command works on: a profile, a live GPU, or the
// default shipped profile when offline and the command allows it.
#include <iostream>

#include "app/cli.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/profile.hpp"

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
  if (!g.quiet)
    std::cerr << "warplab: " << why << "; continuing offline with profile '" << dflt << "'\n";
  return cu::load_profile(dflt);
}

}  // namespace warplab::app
