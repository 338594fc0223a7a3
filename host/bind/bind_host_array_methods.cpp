// bind_host_array_methods.cpp: the methods of cuda.host_array: free (also __gc, __close),
// view, copy and zero (array_methods.hpp), and the registration of those shared with device arrays
// (array_host.cpp). h:copy(src) takes a cuda.array (device to host, cuMemcpyDtoH) or a
// host array (memmove: views of one buffer may overlap). Adapters over lab/array.hpp.
#include "bind/array.hpp"
#include "bind/array_host.hpp"
#include "bind/array_methods.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"
#include "bind/runtime.hpp"

namespace warplab::bind {

// :free(), __close share this (idempotent): freeing the owner releases the memory now
// (its views then raise on use); freeing a view only detaches it. After the watchdog
// fired, cuMemFreeHost could wait for a spinning kernel: the memory is left to the exit.
int host_release(lua_State* L) {
  lab::release(*static_cast<HostArray*>(luaL_checkudata(L, 1, kHostArrayMeta)), runtime(L).timed_out);
  return 0;
}

int host_gc(lua_State* L) {
  host_release(L);
  static_cast<HostArray*>(luaL_checkudata(L, 1, kHostArrayMeta))->~HostArray();
  lua_pushnil(L);  // destroyed: any later use is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

void add_host_array_methods(lua_State* L) {
  const luaL_Reg methods[] = {{"free", host_release},
                              {"view", view_method<HostArray>},
                              {"copy", copy_method<HostArray>},
                              {"zero", zero_method<HostArray>},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
  add_array_host_methods(L);  // get/set/fill/iota/random
}

}  // namespace warplab::bind
