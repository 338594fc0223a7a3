// launch_dim.cpp: check_dim (launch_table.hpp), a launch's dimension read from Lua: an
// integer >= 0, or a list of 1 to 3 of them. On the launch path (k:launch's grid and
// block): the usual integer costs one conversion and builds no message.
#include <climits>

#include "bind/launch_table.hpp"

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

}  // namespace

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

}  // namespace warplab::bind
