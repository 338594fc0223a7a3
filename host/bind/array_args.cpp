// array_args.cpp: the Lua readers cuda.array and cuda.host_array share: the array or
// host array userdata at an index (live, or raising), an element type name, an element
// count (its limits checked by lab/array.hpp).
#include <string>
#include <string_view>

#include "bind/array.hpp"
#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"

namespace warplab::bind {

Array* test_array(lua_State* L, int idx) { return static_cast<Array*>(luaL_testudata(L, idx, kArrayMeta)); }

Array& check_array(lua_State* L, int idx) {
  auto* a = static_cast<Array*>(luaL_checkudata(L, idx, kArrayMeta));
  if (a->freed()) luaL_error(L, "attempt to use a freed array");
  await_gpu(L);  // --timeout: a copy would block on a kernel that may never finish
  return *a;
}

HostArray* test_host_array(lua_State* L, int idx) {
  return static_cast<HostArray*>(luaL_testudata(L, idx, kHostArrayMeta));
}

HostArray& check_host_array(lua_State* L, int idx) {
  auto* h = static_cast<HostArray*>(luaL_checkudata(L, idx, kHostArrayMeta));
  if (h->freed()) luaL_error(L, "attempt to use a freed host array");
  return *h;
}

cu::DType check_dtype(lua_State* L, int idx) {
  std::size_t len = 0;
  const char* name = luaL_checklstring(L, idx, &len);
  if (auto t = cu::parse_dtype(std::string_view(name, len))) return *t;  // "f32\0x" is not f32
  luaL_argerror(L, idx,
                lua_pushfstring(L, "unknown element type '%s' (one of %s)", name, cu::dtype_names().c_str()));
  return cu::DType::F32;
}

std::size_t check_count(lua_State* L, int idx, cu::DType t, const char* who) {
  const lua_Integer n =
      lua_istable(L, idx) ? static_cast<lua_Integer>(lua_rawlen(L, idx)) : luaL_checkinteger(L, idx);
  luaL_argcheck(L, n > 0, idx, "the element count must be positive");
  return lab::check_count(n, t, who);  // throws when its bytes pass 2^56
}

}  // namespace warplab::bind
