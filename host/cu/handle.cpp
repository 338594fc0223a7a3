// handle.cpp: what every driver handle's release does first (handle.hpp).
#include "cu/handle.hpp"

#include <string>

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {

bool prepare_release(const Context* ctx) noexcept {
  if (!driver_available()) return false;
  if (ctx) api().cuCtxSetCurrent(ctx->get());
  return true;
}

void throw_destroyed(const char* what) { throw Error(std::string("use of a destroyed ") + what); }

}  // namespace warplab::cu
