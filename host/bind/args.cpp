// args.cpp: the plain argument checks of args.hpp, Lua's luaL_check* sentences with the
// function named when Lua cannot name it from the calling code.
#include <cstddef>
#include <cstdlib>

#include "bind/args.hpp"
#include "bind/metatable.hpp"

namespace warplab::bind {

void arg_error(lua_State* L, int arg, const char* msg) {
  lua_Debug ar;
  if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "nf", &ar)) {  // +1 the running function
    const char* name = ar.name ? nullptr : function_name(L, -1);
    if (name) luaL_error(L, "bad argument #%d to '%s' (%s)", arg, name, msg);
    lua_pop(L, 1);  // -1
  }
  luaL_argerror(L, arg, msg);  // Lua names it (a method's self not counted)
  std::abort();                // luaL_argerror does not return
}

void arg_type_error(lua_State* L, int arg, const char* expected) {
  const char* got = nullptr;
  if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)  // +1 (a userdata's type name)
    got = lua_tostring(L, -1);
  else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
    got = "light userdata";
  else
    got = luaL_typename(L, arg);
  arg_error(L, arg, lua_pushfstring(L, "%s expected, got %s", expected, got));
}

void* arg_udata(lua_State* L, int arg, const char* meta) {
  void* p = test_udata(L, arg, meta);
  if (!p) [[unlikely]] {
    if (const char* gone = finalized_sentence(L, arg)) luaL_error(L, "%s", gone);
    arg_type_error(L, arg, meta);
  }
  return p;
}

lua_Integer arg_integer(lua_State* L, int arg) {
  int exact = 0;
  const lua_Integer v = lua_tointegerx(L, arg, &exact);
  if (!exact) [[unlikely]] {
    if (lua_isnumber(L, arg)) arg_error(L, arg, "number has no integer representation");
    arg_type_error(L, arg, "number");
  }
  return v;
}

lua_Integer arg_opt_integer(lua_State* L, int arg, lua_Integer dflt) {
  return lua_isnoneornil(L, arg) ? dflt : arg_integer(L, arg);
}

lua_Number arg_opt_number(lua_State* L, int arg, lua_Number dflt) {
  if (lua_isnoneornil(L, arg)) return dflt;
  int isnum = 0;
  const lua_Number v = lua_tonumberx(L, arg, &isnum);
  if (!isnum) [[unlikely]]
    arg_type_error(L, arg, "number");
  return v;
}

const char* arg_string(lua_State* L, int arg, std::size_t* len) {
  // A number is converted in place, as luaL_checklstring does (Lua's rule for strings).
  const char* s = lua_tolstring(L, arg, len);
  if (!s) [[unlikely]]
    arg_type_error(L, arg, "string");
  return s;
}

}  // namespace warplab::bind
