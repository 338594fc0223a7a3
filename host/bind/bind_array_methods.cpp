// bind_array_methods.cpp: the methods of cuda.array: free (also __gc, __close), view,
// copy and zero (array_methods.hpp), and the registration of those shared with host arrays (array_host.cpp).
// a:copy(b) takes a device array or a cuda.host_array. Adapters over lab/array.hpp.
#include "bind/array.hpp"
#include "bind/array_host.hpp"
#include "bind/array_methods.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"
#include "bind/runtime.hpp"

namespace warplab::bind {

// :free(), __gc and __close share this: idempotent. Freeing the owner releases the
// memory now (its views then raise on use); freeing a view only detaches it. After the
// watchdog fired a kernel still spins and cuMemFree would wait for it forever (a <close>
// array is released while the timeout error unwinds): the memory is left to the exit.
int array_release(lua_State* L) {
  lab::release(*static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta)), runtime(L).timed_out);
  return 0;
}

int array_gc(lua_State* L) {
  auto* a = static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta));
  array_release(L);  // a no-op for a view; the owner's memory goes (or leaks after a timeout)
  a->~Array();       // drops this handle's reference; views keep the memory alive
  lua_pushnil(L);    // destroyed: any later use is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

void add_array_methods(lua_State* L) {
  const luaL_Reg methods[] = {{"free", array_release},
                              {"view", view_method<Array>},
                              {"copy", copy_method<Array>},
                              {"zero", zero_method<Array>},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
  add_array_host_methods(L);  // get/set/fill/iota/random
}

}  // namespace warplab::bind
