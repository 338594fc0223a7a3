// module_bind.hpp: what the two module adapter files share: bind_module.cpp (fields,
// kernels by name, tostring, completion, the metatable) and module_methods.cpp
// (cuda.compile, m:kernel(), m:reload(), m:free()).
#pragma once
#include <lua.hpp>

#include "bind/module.hpp"

namespace warplab::bind {

// lab::build with this state's cache, and its GPU context unless offline.
ModuleRef build_module(lua_State* L, ModuleSpec spec);
// Live modules: when a file the module at idx was built from changed, compiles it again
// (lab::refresh) and drops the kernels cached for the old one.
void refresh_module(lua_State* L, int idx);

// module_methods.cpp: cuda.compile and the module's methods, for add_module.
int cuda_compile(lua_State* L);    // cuda.compile(path | {...})
int module_kernel(lua_State* L);   // m:kernel(name [, "parameter types"])
int module_reload(lua_State* L);   // m:reload()
int module_release(lua_State* L);  // m:free(), __close
int module_gc(lua_State* L);       // __gc

}  // namespace warplab::bind
