// cli/lua_state.cpp: open_lua_state: the target (target.cpp), why it is offline, and the
// options as the command line set them, handed to bind::open_state. The device is chosen
// when the script first asks for it whenever that can wait (the default device, a driver
// that loaded; lab::Run chooses on first use): a script that never touches the GPU never
// pays for cuInit.
#include "app/cli/lua_state.hpp"

#include <cstdlib>

#include "cu/driver.hpp"
#include "cu/trace.hpp"
#include "lab/deps.hpp"

namespace warplab::app {
namespace {

// select_target with its reason; `notes` decides whether the offline note is said.
lab::Target choose_target(const Globals& g, const Globals& notes) {
  const cu::TraceScope t("device chosen (cuInit, attributes or profile)");
  cu::DeviceSnapshot target = select_target(notes, /*fallback=*/true);
  lab::record_device(target);  // for `warplab watch`'s occupancy line (a no-op otherwise)
  const bool offline = !target.live();
  std::string reason;
  if (!g.opts.profile.empty())
    reason = "working from profile '" + g.opts.profile + "'";
  else if (auto why = cu::driver_unavailable())
    reason = std::move(*why);
  else if (offline)
    reason = "no CUDA device: the driver found no GPU";
  return {std::move(target), offline, std::move(reason)};
}

}  // namespace

bool target_can_wait(const Globals& g) {
  // A profile is read now (a bad one is exit 4 before the script runs), a device chosen by
  // number is checked now (exit 5 when it is not there), and without a driver the offline
  // note comes first, as before: none of them costs a driver start.
  // Under compute-sanitizer (run --sanitize's second process) the driver starts at once:
  // the tool refuses a run that ends before its first CUDA call, as a script that never
  // touches the GPU would.
  const char* sanitized = std::getenv("WARPLAB_SANITIZE");
  if (sanitized && *sanitized) return false;
  return g.opts.profile.empty() && g.opts.device == 0 && cu::driver_loaded();
}

lab::Run* prepare_device(lua_State* L) {
  try {
    lab::Run& run = bind::run_of(L);
    if (!run.offline()) run.gpu_context("a run made ready");  // offline() chooses: cuInit, attributes
    return &run;
  } catch (const std::exception&) {
    return nullptr;
  }
}

bind::StatePtr open_lua_state(const Globals& g, const Globals* notes) {
  const Globals n = notes ? *notes : g;
  const cu::TraceScope t("Lua state opened");
  if (target_can_wait(g)) return bind::open_state(g.opts, [g, n] { return choose_target(g, n); });
  lab::Target c = choose_target(g, n);
  return bind::open_state(g.opts, std::move(c.device), c.offline, std::move(c.offline_reason));
}

}  // namespace warplab::app
