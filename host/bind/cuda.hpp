// cuda.hpp: the `cuda` table, assembled by cuda.cpp from one add_* per Lua type (each in
// its type's file: device.cpp, array.cpp, ...), and what those files share: set_fields
// (the names an __index answers, for completion) and push_timing (cuda.bench, k:bench).
// Depends on lua.hpp only.
#pragma once
#include <lua.hpp>

#include <initializer_list>
#include <vector>

namespace warplab::bind {

// Registers the `cuda` global (the add_* below provide the pieces); open_state calls it.
void open_cuda(lua_State* L);

// Each registers its functions into the `cuda` table on top of the stack and creates the
// metatables of its userdata types.
void add_device(lua_State* L);      // cuda.device, cuda.devices (device.cpp)
void add_array(lua_State* L);       // cuda.array (array.cpp)
void add_host_array(lua_State* L);  // cuda.host_array (host_array.cpp)
void add_stream(lua_State* L);      // cuda.stream, cuda.event, cuda.synchronize, cuda.bench (stream.cpp)
void add_graph(lua_State* L);       // cuda.graph (graph.cpp)
void add_module(lua_State* L);      // cuda.compile (module.cpp)
void add_kernel(lua_State* L);      // kernel handles, no cuda.* function (kernel.cpp)
void add_json(lua_State* L);        // package.preload["warplab.json_c"]: decode (json.cpp)
void add_hooks(lua_State* L);       // the global `warplab`: mkdir(dir), now() (hooks.cpp)

// Sets __fields on the metatable on top of the stack: the names its __index function
// answers, for the REPL's completion (host/app/repl/complete.cpp).
inline void set_fields(lua_State* L, std::initializer_list<const char*> names) {
  lua_createtable(L, static_cast<int>(names.size()), 0);  // +1 list
  int i = 0;
  for (const char* n : names) {
    lua_pushstring(L, n);     // +1
    lua_rawseti(L, -2, ++i);  // -1
  }
  lua_setfield(L, -2, "__fields");  // -1
}

// Pushes the timing table of `ms` (stream.cpp): warplab.stats.summary of the samples
// (median, min, max, mean, stdev, n) plus the samples themselves.
void push_timing(lua_State* L, std::vector<double> ms);

}  // namespace warplab::bind
