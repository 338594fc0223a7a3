// launch_table.cpp: see launch_table.hpp. Everything here is on the launch path: the
// common case (a number for a dimension, fields present or absent) makes no string
// lookups and builds no message; errors are worded once they are certain.
#include "bind/launch_table.hpp"

#include <climits>

#include "bind/runtime.hpp"
#include "bind/stream.hpp"

namespace warplab::bind {
namespace {

unsigned dim_value(lua_State* L, int at, const char* what) {
  int exact = 0;
  const lua_Integer n = lua_tointegerx(L, at, &exact);  // 256.0 is 256
  if (!exact || n < 0 || n > UINT_MAX)
    luaL_error(L, "%s must be an integer >= 0 or a list of 1 to 3 of them (got %s)", what,
               luaL_tolstring(L, at, nullptr));
  return static_cast<unsigned>(n);
}

// The addresses of the interned key strings (the upvalues keep them alive, so a key of
// any table with the same text is the same string), read once per state.
const void* const* key_addresses(lua_State* L, Runtime& rt) {
  if (!rt.launch_keys[0])
    for (int k = 0; k < kLaunchFields; ++k) rt.launch_keys[k] = lua_topointer(L, lua_upvalueindex(k + 1));
  return rt.launch_keys;
}

}  // namespace

void push_launch_keys(lua_State* L) {
  for (const char* k : {"grid", "block", "shared", "stream", "cooperative", "cluster", "args", "n"})
    lua_pushstring(L, k);  // +1 each
}

cu::Dim3 check_dim(lua_State* L, int idx, const char* what) {
  int exact = 0;
  const lua_Integer n = lua_tointegerx(L, idx, &exact);
  if (exact && n >= 0 && n <= UINT_MAX) return {static_cast<unsigned>(n), 1, 1};  // the usual case
  if (!lua_istable(L, idx)) return {dim_value(L, idx, what), 1, 1};               // raises
  idx = lua_absindex(L, idx);
  cu::Dim3 d;
  unsigned* v[3] = {&d.x, &d.y, &d.z};
  const auto len = lua_rawlen(L, idx);
  if (len < 1 || len > 3)
    luaL_error(L, "%s must have 1 to 3 dimensions, got %d", what, static_cast<int>(len));
  for (int i = 0; i < static_cast<int>(len); ++i) {
    lua_rawgeti(L, idx, i + 1);  // +1
    *v[i] = dim_value(L, lua_gettop(L), what);
    lua_pop(L, 1);  // -1
  }
  return d;
}

int push_fields(lua_State* L, int idx, Runtime& rt) {
  const int f = lua_gettop(L) + 1;
  lua_settop(L, f + kLaunchFields - 1);  // +fields (nil)
  if (lua_getmetatable(L, idx)) {        // +1
    lua_pop(L, 1);                       // -1
    for (int k = 0; k < kLaunchFields; ++k) {
      lua_pushvalue(L, lua_upvalueindex(k + 1));  // +1 key
      lua_gettable(L, idx);                       // -1 +1 value
      lua_replace(L, f + k);                      // -1
    }
    return f;
  }
  const void* const* keys = key_addresses(L, rt);
  lua_pushnil(L);             // +1 first key
  while (lua_next(L, idx)) {  // -1 +2 key, value
    const void* key = lua_type(L, -2) == LUA_TSTRING ? lua_topointer(L, -2) : nullptr;
    for (int k = 0; k < kLaunchFields; ++k)
      if (key == keys[k]) {
        lua_copy(L, -1, f + k);
        break;
      }
    lua_pop(L, 1);  // -1 value
  }
  return f;
}

cu::LaunchConfig read_config(lua_State* L, int f) {
  auto at = [f](LaunchKey k) { return f + k - kGrid; };
  cu::LaunchConfig c;
  if (lua_isnil(L, at(kGrid))) luaL_error(L, "launch table needs grid =");
  c.grid = check_dim(L, at(kGrid), "grid");
  if (lua_isnil(L, at(kBlock))) luaL_error(L, "launch table needs block =");
  c.block = check_dim(L, at(kBlock), "block");
  if (!lua_isnil(L, at(kShared))) {
    int exact = 0;
    const lua_Integer s = lua_tointegerx(L, at(kShared), &exact);
    if (!exact || s < 0 || s > UINT_MAX)
      luaL_error(L, "shared must be a byte count >= 0, got %s", luaL_tolstring(L, at(kShared), nullptr));
    c.shared_bytes = static_cast<unsigned>(s);
  }
  if (!lua_isnil(L, at(kStream))) c.stream = opt_stream(L, at(kStream));
  c.cooperative = lua_toboolean(L, at(kCooperative));
  if (!lua_isnil(L, at(kCluster)))
    c.cluster = check_dim(L, at(kCluster), "cluster");  // a zero is named by validate()
  return c;
}

cu::LaunchConfig config_from_table(lua_State* L, int idx) {
  const int top = lua_gettop(L);
  const cu::LaunchConfig c = read_config(L, push_fields(L, idx, runtime(L)));  // +fields
  lua_settop(L, top);                                                          // -fields
  return c;
}

int push_args(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    if (!lua_isnil(L, idx)) luaL_error(L, "args must be a list");
    return 0;
  }
  lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
  lua_pushvalue(L, lua_upvalueindex(kCount));                                                 // +1 "n"
  if (lua_gettable(L, idx) == LUA_TNUMBER && lua_isinteger(L, -1)) n = lua_tointeger(L, -1);  // -1 +1
  lua_pop(L, 1);                                                                              // -1
  if (n < 0 || n > 4096) luaL_error(L, "args.n = %I is not an argument count", n);
  // Room for the arguments and what the launch pushes after them (the fault note's).
  luaL_checkstack(L, static_cast<int>(n) + 4, "too many kernel arguments");
  for (lua_Integer i = 1; i <= n; ++i) lua_rawgeti(L, idx, i);  // +n
  return static_cast<int>(n);
}

}  // namespace warplab::bind
