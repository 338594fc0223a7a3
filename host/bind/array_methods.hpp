// array_methods.hpp: the methods cuda.array and cuda.host_array share word for word,
// written once over the record type A (bind::Array or bind::HostArray): view, copy and
// zero. Each kind registers its own instances (bind_array_methods.cpp,
// bind_host_array_methods.cpp), so a wrong self still gets its kind's sentence.
#pragma once
#include <lua.hpp>

#include <optional>

#include "bind/array.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"

namespace warplab::bind {

template <class A>
struct ArrayKind;
template <>
struct ArrayKind<Array> {
  static Array& check(lua_State* L, int idx) { return check_array(L, idx); }
  static Array& push(lua_State* L) { return push_array(L); }
  static constexpr const char* noun = "an array";
};
template <>
struct ArrayKind<HostArray> {
  static HostArray& check(lua_State* L, int idx) { return check_host_array(L, idx); }
  static HostArray& push(lua_State* L) { return push_host_array(L); }
  static constexpr const char* noun = "a host array";
};

// x:view(first [, n]): elements first .. first + n - 1 (default: to the end), sharing memory.
template <class A>
int view_method(lua_State* L) {
  return guard(L, [L] {
    const A& a = ArrayKind<A>::check(L, 1);
    const lua_Integer first = luaL_checkinteger(L, 2);
    const auto n = lua_isnoneornil(L, 3) ? std::nullopt : std::optional<lua_Integer>(luaL_checkinteger(L, 3));
    const lab::Range r = lab::view_range(first, n, a.count, ArrayKind<A>::noun);
    ArrayKind<A>::push(L) = lab::view_of(a, r);  // +1 view
    return 1;
  });
}

// x:copy(src): src is a device or a host array of the same type and length (lab::copy
// picks cuMemcpyDtoD, HtoD, DtoH or a memmove).
template <class A>
int copy_method(lua_State* L) {
  return guard(L, [L] {
    A& dst = ArrayKind<A>::check(L, 1);
    if (test_host_array(L, 2))
      lab::copy(dst, check_host_array(L, 2));
    else
      lab::copy(dst, check_array(L, 2));
    lua_settop(L, 1);
    return 1;
  });
}

template <class A>
int zero_method(lua_State* L) {
  return guard(L, [L] {
    lab::zero(ArrayKind<A>::check(L, 1));
    lua_settop(L, 1);
    return 1;
  });
}

}  // namespace warplab::bind
