// udata.hpp: telling a warplab userdata by the address of its metatable, for the launch
// path. luaL_testudata looks the metatable up in the registry by name on every call (a
// string lookup with a strcmp); the registry keeps each metatable for the life of the
// state, so its address, read once, identifies it with one pointer comparison.
#pragma once
#include <lua.hpp>

namespace warplab::bind {

// The userdata at idx when its metatable is registry[name], else nullptr. `meta` caches
// the metatable's address (null until the first call that finds it registered).
inline void* fast_testudata(lua_State* L, int idx, const void*& meta, const char* name) {
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return nullptr;  // +1 meta
  if (!meta) {
    luaL_getmetatable(L, name);  // +1
    meta = lua_topointer(L, -1);
    lua_pop(L, 1);  // -1
  }
  const bool same = lua_topointer(L, -1) == meta;
  lua_pop(L, 1);  // -1 meta
  return same ? lua_touserdata(L, idx) : nullptr;
}

}  // namespace warplab::bind
