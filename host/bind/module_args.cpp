// module_args.cpp: see module_args.hpp. The checks of a define's name and text are lab's
// (lab/module_spec.hpp); here only the Lua types.
#include "bind/module_args.hpp"

#include "lab/module_spec.hpp"

namespace warplab::bind {

Caller caller(lua_State* L) {
  lua_Debug ar;
  // Level 1 is the Lua function that called cuda.compile.
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@')
    return {ar.source + 1, ar.currentline};
  return {};
}

std::vector<std::string> string_list(lua_State* L, int t, const char* field) {
  std::vector<std::string> out;
  const int type = lua_getfield(L, t, field);  // +1
  if (type == LUA_TSTRING)
    out.emplace_back(lua_tostring(L, -1));
  else if (type == LUA_TTABLE)
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {  // +1
      if (!lua_isstring(L, -1))
        luaL_error(L, "cuda.compile: %s[%d] must be a string", field, static_cast<int>(i));
      out.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);  // -1
    }
  else if (type != LUA_TNIL)
    luaL_error(L, "cuda.compile: %s must be a string or a list of strings", field);
  lua_settop(L, t);  // drop leftovers
  return out;
}

void read_defines(lua_State* L, int t, rtc::Options& o) {
  const int type = lua_getfield(L, t, "defines");  // +1
  if (type != LUA_TTABLE) {
    if (type != LUA_TNIL)
      luaL_error(L, "cuda.compile: defines must be a table ({BLOCK = 256} or {\"BLOCK=256\"})");
    lua_settop(L, t);
    return;
  }
  std::vector<std::pair<std::string, std::string>> named, listed;
  std::string bad;                          // a lab::Error's sentence, raised once its exception is gone
  lua_pushnil(L);                           // +1 key
  while (bad.empty() && lua_next(L, -2)) {  // +1 value
    try {
      if (lua_isinteger(L, -2)) {  // {"A=1", "B"}
        const int i = static_cast<int>(lua_tointeger(L, -2));
        if (lua_type(L, -1) != LUA_TSTRING)
          luaL_error(L, "cuda.compile: defines[%d] must be a string like \"NAME=value\"", i);
        listed.push_back(lab::listed_define(i, lua_tostring(L, -1)));
      } else if (lua_type(L, -2) == LUA_TSTRING) {  // {BLOCK = 256, DEBUG = true}
        const int vt = lua_type(L, -1);
        if (vt != LUA_TNUMBER && vt != LUA_TSTRING && vt != LUA_TBOOLEAN)
          luaL_error(L, "cuda.compile: defines.%s must be a number, string or boolean, got %s",
                     lua_tostring(L, -2), luaL_typename(L, -1));
        std::string v = vt == LUA_TBOOLEAN ? (lua_toboolean(L, -1) ? "1" : "0")
                                           : luaL_tolstring(L, -1, nullptr);  // +1 (not for booleans)
        if (vt != LUA_TBOOLEAN) lua_pop(L, 1);                                // -1
        named.push_back(lab::named_define(lua_tostring(L, -2), std::move(v)));
      } else {
        luaL_error(L, "cuda.compile: defines keys must be names, got a %s", luaL_typename(L, -2));
      }
    } catch (const lab::Error& e) {
      bad = e.what();
    }
    if (bad.empty()) lua_pop(L, 1);  // -1 value
  }
  if (!bad.empty()) luaL_error(L, "%s", bad.c_str());
  lab::add_defines(o, std::move(named), listed);
  lua_settop(L, t);
}

std::string opt_string(lua_State* L, int t, const char* field) {
  const int type = lua_getfield(L, t, field);  // +1
  std::string v;
  std::size_t len = 0;
  if (type == LUA_TSTRING) {
    const char* p = lua_tolstring(L, -1, &len);
    v.assign(p, len);  // every byte, NULs too
  } else if (type != LUA_TNIL)
    luaL_error(L, "cuda.compile: %s must be a string, got %s", field, luaL_typename(L, -1));
  lua_pop(L, 1);  // -1
  return v;
}

}  // namespace warplab::bind
