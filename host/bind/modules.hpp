// modules.hpp: the pieces of the `cuda` Lua module, one bind_<thing>.cpp each. Each
// add_* function registers its functions into the `cuda` table on top of the stack and
// creates the metatables of its userdata types.
#pragma once
#include <lua.hpp>

namespace warplab::bind {

void add_device(lua_State* L);  // cuda.device, cuda.devices
void add_array(lua_State* L);   // cuda.array
void add_stream(lua_State* L);  // cuda.stream, cuda.event, cuda.synchronize, cuda.bench
void add_module(lua_State* L);  // cuda.compile
void add_kernel(lua_State* L);  // kernel handles (no cuda.* function)

}  // namespace warplab::bind
