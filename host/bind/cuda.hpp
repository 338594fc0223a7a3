// cuda.hpp: the `cuda` table, assembled by cuda.cpp from one add_* per Lua type (each in
// its type's file: device.cpp, array.cpp, ...), and what those files share: set_fields
// (the names an __index answers, for completion) and push_timing (cuda.bench, k:bench).
// cuda.counters and k:counters share what counters.cpp defines.
#pragma once
#include <lua.hpp>

#include <functional>
#include <initializer_list>
#include <string>
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
void add_lines(lua_State* L);       // cuda.lines (lines.cpp)
void add_counters(lua_State* L);  // cuda.counters, cuda.counter_sets, cuda.counters_available (counters.cpp)

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

// counters.cpp, for cuda.counters and k:counters: the counter names at idx (a list of set
// or metric names, or one "shared,memory" string), raising "<who>: ..." otherwise; and
// `body` run inside a counter session for them, then the rows pushed (one_row: the one
// row of a single launch). Offline the names are checked, then the GPU sentence raised.
std::vector<std::string> counter_words(lua_State* L, int idx, const char* who);
int push_counted(lua_State* L, const std::vector<std::string>& words, const char* who,
                 const std::function<void()>& body, bool one_row);

}  // namespace warplab::bind
