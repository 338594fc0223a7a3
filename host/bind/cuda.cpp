// cuda.cpp: assembles the `cuda` global from the pieces of each Lua type's file (cuda.hpp).
#include "bind/cuda.hpp"

#include "bind/metatable.hpp"

namespace warplab::bind {

void open_cuda(lua_State* L) {
  lua_newtable(L);  // +1 cuda
  add_device(L);
  add_array(L);
  add_host_array(L);
  add_stream(L);
  add_event(L);
  add_bench(L);
  add_graph(L);
  add_tensor_map(L);
  add_module(L);
  add_kernel(L);
  add_json(L);
  add_warplab_table(L);
  add_counters(L);
  add_lines(L);
  lua_pushstring(L, WARPLAB_VERSION);     // +1
  lua_setfield(L, -2, "version");         // -1
  name_functions(L, -1, "cuda", '.');     // for argument errors (args.hpp)
  lua_setglobal(L, "cuda");               // -1
  lua_getglobal(L, "warplab");            // +1
  name_functions(L, -1, "warplab", '.');  // warplab.write_file, ...
  lua_pop(L, 1);                          // -1
}

}  // namespace warplab::bind
