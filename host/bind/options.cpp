// options.cpp: the options tables a call takes, read from Lua (args.hpp): the keys it
// takes (the others named in the sentence), booleans and counts. Each misuse raises its
// one sentence, naming the call.
#include <cstring>
#include <initializer_list>
#include <string>

#include "bind/args.hpp"
#include "bind/guard.hpp"

namespace warplab::bind {

void check_option_keys(lua_State* L, int idx, const char* who, std::initializer_list<const char*> names) {
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx))
    raise(L, "%s takes nothing or a table of options, got %s", who, luaL_typename(L, idx));
  idx = lua_absindex(L, idx);
  lua_pushnil(L);             // +1 key
  while (lua_next(L, idx)) {  // -1 +2 key, value
    bool known = false;
    for (const char* n : names)
      known = known || (lua_type(L, -2) == LUA_TSTRING && std::strcmp(lua_tostring(L, -2), n) == 0);
    if (!known) {
      std::string list;
      for (const char* n : names) list += (list.empty() ? "" : ", ") + std::string(n);
      raise(L, "%s: unknown option '%s' (options: %s)", who, luaL_tolstring(L, -2, nullptr), list.c_str());
    }
    lua_pop(L, 1);  // -1 value
  }
}

bool bool_option(lua_State* L, int t, const char* name, bool dflt, const char* who) {
  if (!lua_istable(L, t)) return dflt;
  bool v = dflt;
  if (lua_getfield(L, t, name) != LUA_TNIL) {  // +1
    if (!lua_isboolean(L, -1))
      raise(L, "%s: %s must be true or false, got %s", who, name, luaL_typename(L, -1));
    v = lua_toboolean(L, -1);
  }
  lua_pop(L, 1);  // -1
  return v;
}

int count_option(lua_State* L, int t, const char* name, int dflt, int lo, int hi, const char* who) {
  if (!lua_istable(L, t)) return dflt;
  lua_Integer v = dflt;
  if (lua_getfield(L, t, name) != LUA_TNIL && !read_integer(L, -1, lo, hi, v))  // +1
    raise(L, "%s: %s must be an integer from %d to %d, got %s", who, name, lo, hi,
          luaL_tolstring(L, -1, nullptr));
  lua_pop(L, 1);  // -1
  return static_cast<int>(v);
}

}  // namespace warplab::bind
