// modules.hpp: the pieces of the `cuda` Lua module, one bind_<thing>.cpp each. Each
// add_* function registers its functions into the `cuda` table on top of the stack and
// creates the metatables of its userdata types.
#pragma once
#include <lua.hpp>

namespace warplab::bind {

void add_device(lua_State* L);  // cuda.device, cuda.devices

}  // namespace warplab::bind
