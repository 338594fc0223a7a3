// modules.hpp: the pieces of the `cuda` Lua module, one bind_<thing>.cpp each. Each
// add_* function registers its functions into the `cuda` table on top of the stack and
// creates the metatables of its userdata types.
#pragma once
#include <lua.hpp>

#include <initializer_list>

namespace warplab::bind {

// Sets __fields on the metatable on top of the stack: the names its __index function
// answers, for the REPL's completion (host/app/repl_complete.cpp).
inline void set_fields(lua_State* L, std::initializer_list<const char*> names) {
  lua_createtable(L, static_cast<int>(names.size()), 0);  // +1 list
  int i = 0;
  for (const char* n : names) {
    lua_pushstring(L, n);     // +1
    lua_rawseti(L, -2, ++i);  // -1
  }
  lua_setfield(L, -2, "__fields");  // -1
}

void add_device(lua_State* L);      // cuda.device, cuda.devices
void add_array(lua_State* L);       // cuda.array
void add_host_array(lua_State* L);  // cuda.host_array
void add_stream(lua_State* L);      // cuda.stream, cuda.event, cuda.synchronize, cuda.bench
void add_module(lua_State* L);      // cuda.compile
void add_kernel(lua_State* L);      // kernel handles (no cuda.* function)
void add_json(lua_State* L);
void add_host_hooks(lua_State* L);  // the global `warplab`: mkdir(dir), now()    //
                                    // package.preload["warplab.json_c"]: decode (warplab.json)

}  // namespace warplab::bind
