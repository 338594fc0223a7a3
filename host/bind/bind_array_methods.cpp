// bind_array_methods.cpp: the methods of cuda.array: free (also __gc, __close), view,
// copy and zero, and the registration of those shared with host arrays (array_host.cpp).
// a:copy(b) takes a device array or a cuda.host_array. Adapters over lab/array.hpp.
#include <optional>

#include "bind/array.hpp"
#include "bind/array_host.hpp"
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

namespace {

static int array_view(lua_State* L) {
  return guard(L, [L] {
    const Array& a = check_array(L, 1);
    const lua_Integer first = luaL_checkinteger(L, 2);
    const auto n = lua_isnoneornil(L, 3) ? std::nullopt : std::optional<lua_Integer>(luaL_checkinteger(L, 3));
    const lab::Range r = lab::view_range(first, n, a.count, "an array");
    push_array(L) = lab::view_of(a, r);  // +1 view
    return 1;
  });
}

// a:copy(b): device to device, or host to device when b is a cuda.host_array
// (cuMemcpyHtoD: straight from pinned memory, through the driver's staging when pageable).
static int array_copy(lua_State* L) {
  return guard(L, [L] {
    Array& dst = check_array(L, 1);
    if (test_host_array(L, 2))
      lab::copy(dst, check_host_array(L, 2));
    else
      lab::copy(dst, check_array(L, 2));
    lua_settop(L, 1);
    return 1;
  });
}

static int array_zero(lua_State* L) {
  return guard(L, [L] {
    lab::zero(check_array(L, 1));
    lua_settop(L, 1);
    return 1;
  });
}

}  // namespace

void add_array_methods(lua_State* L) {
  const luaL_Reg methods[] = {{"free", array_release},
                              {"view", array_view},
                              {"copy", array_copy},
                              {"zero", array_zero},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
  add_array_host_methods(L);  // get/set/fill/iota/random
}

}  // namespace warplab::bind
