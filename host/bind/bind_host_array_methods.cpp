// bind_host_array_methods.cpp: the methods of cuda.host_array: free (also __gc, __close),
// view, copy and zero, and the registration of those shared with device arrays
// (array_host.cpp). h:copy(src) takes a cuda.array (device to host, cuMemcpyDtoH) or a
// host array (memmove: views of one buffer may overlap). Adapters over lab/array.hpp.
#include <optional>

#include "bind/array.hpp"
#include "bind/array_host.hpp"
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

namespace {

static int host_view(lua_State* L) {
  return guard(L, [L] {
    const HostArray& h = check_host_array(L, 1);
    const lua_Integer first = luaL_checkinteger(L, 2);
    const auto n = lua_isnoneornil(L, 3) ? std::nullopt : std::optional<lua_Integer>(luaL_checkinteger(L, 3));
    const lab::Range r = lab::view_range(first, n, h.count, "a host array");
    push_host_array(L) = lab::view_of(h, r);  // +1 view
    return 1;
  });
}

static int host_copy(lua_State* L) {
  return guard(L, [L] {
    HostArray& dst = check_host_array(L, 1);
    if (test_host_array(L, 2))
      lab::copy(dst, check_host_array(L, 2));
    else
      lab::copy(dst, check_array(L, 2));
    lua_settop(L, 1);
    return 1;
  });
}

static int host_zero(lua_State* L) {
  return guard(L, [L] {
    lab::zero(check_host_array(L, 1));
    lua_settop(L, 1);
    return 1;
  });
}

}  // namespace

void add_host_array_methods(lua_State* L) {
  const luaL_Reg methods[] = {{"free", host_release},
                              {"view", host_view},
                              {"copy", host_copy},
                              {"zero", host_zero},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
  add_array_host_methods(L);  // get/set/fill/iota/random
}

}  // namespace warplab::bind
