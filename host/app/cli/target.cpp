// cli/target.cpp: choosing the device a command works on (command.hpp): a profile, a live
// GPU, or the default shipped profile when offline and the command allows it, with the one
// offline note.
#include <iostream>
#include <optional>

#include "app/cli/command.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/profile.hpp"

namespace warplab::app {

namespace {

// The driver layer's sentence (cu/driver.cpp) shortened to what the note needs: the
// full sentence stays for the errors that need a GPU ("... needs a GPU (<why>)").
std::string short_reason(const std::string& why) {
  const std::pair<const char*, const char*> known[] = {
      {"WARPLAB_NO_DRIVER is set", "WARPLAB_NO_DRIVER is set"},
      {"libcuda.so.1 could not be loaded", "libcuda.so.1 not found"},
      {"driver too old", "the NVIDIA driver is older than CUDA 12.0"},
      {"driver found no GPU", "the driver found none"},
  };
  for (const auto& [in, out] : known)
    if (why.find(in) != std::string::npos) return out;
  if (const auto at = why.find("cuInit failed: "); at != std::string::npos)
    return "cuInit failed with " + why.substr(at + 15);
  return why;
}

// The full sentence: why there is no GPU; nullopt when there is one.
std::optional<std::string> no_gpu_why() {
  if (auto why = cu::driver_unavailable()) return why;
  if (cu::device_count() > 0) return std::nullopt;
  return "no CUDA device: the driver found no GPU";
}

}  // namespace

std::optional<std::string> offline_reason(const Globals& g) {
  if (!g.opts.profile.empty()) return std::nullopt;
  if (const auto why = no_gpu_why()) return short_reason(*why);
  return std::nullopt;
}

void note_offline(const Globals& g, const std::string& reason, const std::string& profile) {
  if (g.opts.quiet || g.offline_noted) return;
  std::cerr << "warplab: no GPU (" << reason << "): using profile " << profile << "\n";
}

cu::DeviceSnapshot select_target(const Globals& g, bool fallback) {
  if (!g.opts.profile.empty()) return cu::load_profile(g.opts.profile);
  const std::optional<std::string> no_gpu = no_gpu_why();
  if (!no_gpu) return cu::snapshot_device(g.opts.device);
  const std::string& why = *no_gpu;
  const std::string dflt = cu::default_profile_name();
  // A device asked for by number cannot be stood in for by a profile: say so, not run on.
  if (g.opts.device != 0)
    throw Error(ErrorKind::no_gpu, "device " + std::to_string(g.opts.device) + " does not exist: " + why +
                                       " (use --profile " + (dflt.empty() ? "FILE" : dflt) +
                                       " to work from a captured device)");
  if (!fallback || dflt.empty())
    throw Error(ErrorKind::no_gpu, why + " (use --profile " + (dflt.empty() ? "FILE" : dflt) +
                                       " to work from a captured device)");
  note_offline(g, short_reason(why), dflt);
  return cu::load_profile(dflt);
}

}  // namespace warplab::app
