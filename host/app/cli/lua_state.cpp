// cli/lua_state.cpp: open_lua_state: the target (target.cpp), why it is offline, and the
// options as the command line set them, handed to bind::open_state. Depends on
// lua_state.hpp, cu/driver.hpp and lab/deps.hpp (the file a watched run reports to).
#include "app/cli/lua_state.hpp"

#include "cu/driver.hpp"
#include "lab/deps.hpp"

namespace warplab::app {

bind::StatePtr open_lua_state(const Globals& g, const Globals* notes) {
  cu::DeviceSnapshot target = select_target(notes ? *notes : g, /*fallback=*/true);
  lab::record_device(target);  // for `warplab watch`'s occupancy line (a no-op otherwise)
  const bool offline = !target.live();
  std::string reason;
  if (!g.opts.profile.empty())
    reason = "working from profile '" + g.opts.profile + "'";
  else if (!cu::driver_available(&reason)) {
  } else if (offline)
    reason = "no CUDA device: the driver found no GPU";
  return bind::open_state(g.opts, std::move(target), offline, reason);
}

}  // namespace warplab::app
