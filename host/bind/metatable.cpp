// metatable.cpp: see metatable.hpp.
#include "bind/metatable.hpp"

#include <cstring>

#include "bind/sandbox.hpp"

namespace warplab::bind {
namespace {

// __index of a type with methods and fields: upvalue 1 the methods table, upvalue 2 the
// type's fields reader (a light C function), called here directly, so that the level of
// a field's error is the caller's as with any __index function.
int methods_then_fields(lua_State* L) {
  lua_pushvalue(L, 2);                                           // +1 key
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;  // -1 +1 method
  lua_pop(L, 1);                                                 // -1
  return lua_tocfunction(L, lua_upvalueindex(2))(L);
}

// __fields(obj): a new list of upvalue 1's names, then what upvalue 2 (more_fields, or
// nil) adds for obj.
int list_fields(lua_State* L) {
  lua_settop(L, 1);
  const auto n = static_cast<lua_Integer>(lua_rawlen(L, lua_upvalueindex(1)));
  lua_createtable(L, static_cast<int>(n), 0);  // +1 list
  for (lua_Integer i = 1; i <= n; ++i) {
    lua_rawgeti(L, lua_upvalueindex(1), i);  // +1
    lua_rawseti(L, 2, i);                    // -1
  }
  if (lua_CFunction more = lua_tocfunction(L, lua_upvalueindex(2))) {
    more(L);
    lua_settop(L, 2);
  }
  return 1;
}

int count(const luaL_Reg* r) {
  int n = 0;
  while (r && r[n].name) ++n;
  return n;
}

// luaL_setfuncs of `r` into the table at t, each function a closure over copies of the
// `nup` values at stack [up, up + nup), leaving the stack as it was; `skip` is not set.
void set_funcs(lua_State* L, int t, const luaL_Reg* r, int up, int nup, const char* skip) {
  for (; r && r->name; ++r) {
    if (skip && std::strcmp(r->name, skip) == 0) continue;
    for (int i = 0; i < nup; ++i) lua_pushvalue(L, up + i);  // +nup
    lua_pushcclosure(L, r->func, nup);                       // -nup +1
    lua_setfield(L, t, r->name);                             // -1
  }
}

}  // namespace

void register_type(lua_State* L, const LuaType& t) {
  const int nup = t.upvalues;
  luaL_checkstack(L, nup + 6, t.name);
  const int up = lua_gettop(L) - nup + 1;  // the first upvalue
  luaL_newmetatable(L, t.name);            // +1 meta
  const int meta = lua_gettop(L);
  lock_metatable(L, t.name);  // getmetatable() gives the name, never the table
  set_funcs(L, meta, t.meta, up, nup, "__index");
  lua_CFunction fields_reader = nullptr;
  for (const luaL_Reg* r = t.meta; r && r->name; ++r)
    if (std::strcmp(r->name, "__index") == 0) fields_reader = r->func;
  if (t.methods || t.shared) {
    lua_createtable(L, 0, count(t.methods) + count(t.shared));  // +1 methods
    set_funcs(L, meta + 1, t.methods, up, nup, nullptr);
    set_funcs(L, meta + 1, t.shared, up, nup, nullptr);
    lua_pushvalue(L, -1);              // +1
    lua_setfield(L, meta, "methods");  // -1
    if (fields_reader) {
      lua_pushcfunction(L, fields_reader);          // +1
      lua_pushcclosure(L, methods_then_fields, 2);  // -2 +1
    }
    lua_setfield(L, meta, "__index");  // -1 the closure, or the methods themselves
  } else if (fields_reader) {
    lua_pushcfunction(L, fields_reader);  // +1
    lua_setfield(L, meta, "__index");     // -1
  }
  if (t.fields || t.more_fields) {
    lua_newtable(L);  // +1 names
    for (int i = 0; t.fields && t.fields[i]; ++i) {
      lua_pushstring(L, t.fields[i]);  // +1
      lua_rawseti(L, -2, i + 1);       // -1
    }
    if (t.more_fields)
      lua_pushcfunction(L, t.more_fields);  // +1
    else
      lua_pushnil(L);                     // +1
    lua_pushcclosure(L, list_fields, 2);  // -2 +1
    lua_setfield(L, meta, "__fields");    // -1
  }
  lua_settop(L, meta - 1 - nup);  // -meta -upvalues
}

}  // namespace warplab::bind
