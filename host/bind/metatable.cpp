// metatable.cpp: see metatable.hpp.
#include "bind/metatable.hpp"

#include <cstring>
#include <string>

#include "bind/sandbox.hpp"

namespace warplab::bind {
namespace {

// The registry key (its address) of the table of function names: function -> "k:launch".
const char kNamesKey = 0;
// Keys (their addresses) for objects with metatables of their own: in the type's metatable,
// the metatable of every object's __index table; in an object's metatable, the type's; in
// its __index table, the object.
const char kObjectFieldsKey = 0;
const char kTypeKey = 0;
const char kObjectKey = 0;

// __index of a type with methods and fields: upvalue 1 the methods table, upvalue 2 the
// type's fields reader (a light C function), called here directly, so that the level of
// a field's error is the caller's as with any __index function.
int methods_then_fields(lua_State* L) {
  lua_pushvalue(L, 2);                                           // +1 key
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;  // -1 +1 method
  lua_pop(L, 1);                                                 // -1
  return lua_tocfunction(L, lua_upvalueindex(2))(L);
}

// __index of an object's own __index table (set_object_metatable), for a key that names no
// method: upvalue 1 the type's fields reader, called with the object and the key, as
// methods_then_fields calls it.
int object_fields(lua_State* L) {
  lua_rawgetp(L, 1, &kObjectKey);  // +1 the object
  lua_replace(L, 1);               // -1
  return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

// Copies the entries of the table at `from` into the table at `to` (raw); the stack is left
// as it was.
void copy_entries(lua_State* L, int from, int to) {
  lua_pushnil(L);              // +1 key
  while (lua_next(L, from)) {  // -1 +2 key, value
    lua_pushvalue(L, -2);      // +1 key
    lua_insert(L, -2);         // key, key, value
    lua_rawset(L, to);         // -2
  }
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

// The finalized metatable's metamethods: upvalue 1 the sentence (__tostring: the name).
int finalized_use(lua_State* L) { return luaL_error(L, "%s", lua_tostring(L, lua_upvalueindex(1))); }
int finalized_tostring(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  return 1;
}

// Makes the finalized form of type `name`'s metatable (at `meta`) and keeps it there as
// __finalized (set_finalized finds it there).
void make_finalized(lua_State* L, int meta, const char* name) {
  std::string noun = name;
  if (noun.rfind("warplab.", 0) == 0) noun.erase(0, 8);
  for (char& c : noun)
    if (c == '_') c = ' ';
  const std::string sentence = "attempt to use a " + noun +
                               " after its finalizer ran (at the end of a run, objects are finalized in the "
                               "reverse order of their creation)";
  lua_createtable(L, 0, 8);                    // +1 finalized
  lua_pushfstring(L, "%s (finalized)", name);  // +1
  lua_pushvalue(L, -1);                        // +1
  lua_setfield(L, -3, "__name");               // -1
  lua_setfield(L, -2, "__metatable");          // -1: locked as every metatable
  lua_pushstring(L, sentence.c_str());         // +1
  lua_setfield(L, -2, "__finalized");          // -1
  for (const char* mm : {"__index", "__newindex", "__len", "__call", "__close"}) {
    lua_pushstring(L, sentence.c_str());    // +1
    lua_pushcclosure(L, finalized_use, 1);  // -1 +1
    lua_setfield(L, -2, mm);                // -1
  }
  lua_pushfstring(L, "cuda.%s (finalized)", name + (std::strncmp(name, "warplab.", 8) == 0 ? 8 : 0));  // +1
  lua_pushcclosure(L, finalized_tostring, 1);  // -1 +1
  lua_setfield(L, -2, "__tostring");           // -1
  lua_setfield(L, meta, "__finalized");        // -1
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

void name_functions(lua_State* L, int idx, const char* prefix, char sep, bool keep) {
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kNamesKey) != LUA_TTABLE) {  // +1 names
    lua_pop(L, 1);                                                    // -1
    lua_newtable(L);                                                  // +1
    lua_pushvalue(L, -1);                                             // +1
    lua_rawsetp(L, LUA_REGISTRYINDEX, &kNamesKey);                    // -1
  }
  lua_pushnil(L);                                              // +1 key
  while (lua_next(L, idx)) {                                   // -1 +2 key, value
    lua_pushvalue(L, -1);                                      // +1 value
    const bool named = keep && lua_rawget(L, -4) != LUA_TNIL;  // -1 +1 its name or nil
    lua_pop(L, 1);                                             // -1
    if (!named && lua_type(L, -1) == LUA_TFUNCTION && lua_type(L, -2) == LUA_TSTRING) {
      lua_pushfstring(L, "%s%c%s", prefix, sep, lua_tostring(L, -2));  // +1 name
      lua_rawset(L, -4);                                               // -1 -1: names[fn] = name
    } else {
      lua_pop(L, 1);  // -1 value
    }
  }
  lua_pop(L, 1);  // -1 names
}

const char* function_name(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kNamesKey) != LUA_TTABLE) {  // +1 names
    lua_pop(L, 1);
    return nullptr;
  }
  lua_pushvalue(L, idx);                   // +1
  lua_rawget(L, -2);                       // -1 +1 name or nil
  const char* name = lua_tostring(L, -1);  // kept alive by the names table
  lua_pop(L, 2);                           // -2
  return name;
}

void set_finalized(lua_State* L, int idx) {
  idx = lua_absindex(L, idx);
  if (!lua_getmetatable(L, idx)) return;                   // +1 meta
  if (lua_getfield(L, -1, "__finalized") != LUA_TTABLE) {  // +1 (raw: a metatable has none)
    lua_pop(L, 1);                                         // -1
    lua_pushnil(L);                                        // +1: no metatable at all, as before
  }
  lua_setmetatable(L, idx);  // -1
  lua_pop(L, 1);             // -1 meta
}

const char* finalized_sentence(lua_State* L, int idx) {
  if (luaL_getmetafield(L, idx, "__finalized") != LUA_TSTRING) return nullptr;  // +1 when found
  const char* s = lua_tostring(L, -1);  // kept alive by the finalized metatable
  lua_pop(L, 1);
  return s;
}

void register_type(lua_State* L, const LuaType& t) {
  const int nup = t.upvalues;
  luaL_checkstack(L, nup + 6, t.name);
  const int up = lua_gettop(L) - nup + 1;  // the first upvalue
  luaL_newmetatable(L, t.name);            // +1 meta
  const int meta = lua_gettop(L);
  lock_metatable(L, t.name);  // getmetatable() gives the name, never the table
  set_funcs(L, meta, t.meta, up, nup, "__index");
  for (const luaL_Reg* r = t.meta; r && r->name; ++r)
    if (std::strcmp(r->name, "__gc") == 0) make_finalized(L, meta, t.name);
  lua_CFunction fields_reader = nullptr;
  for (const luaL_Reg* r = t.meta; r && r->name; ++r)
    if (std::strcmp(r->name, "__index") == 0) fields_reader = r->func;
  if (t.methods || t.shared) {
    lua_createtable(L, 0, count(t.methods) + count(t.shared));  // +1 methods
    set_funcs(L, meta + 1, t.methods, up, nup, nullptr);
    if (nup == 0 && t.shared) {   // closures of their own (over the type's name): their names differ per type
      lua_pushstring(L, t.name);  // +1
      set_funcs(L, meta + 1, t.shared, lua_gettop(L), 1, nullptr);
      lua_pop(L, 1);  // -1
    } else {
      set_funcs(L, meta + 1, t.shared, up, nup, nullptr);
    }
    if (t.var) name_functions(L, meta + 1, t.var, ':');
    lua_pushvalue(L, -1);              // +1
    lua_setfield(L, meta, "methods");  // -1
    if (fields_reader) {
      lua_pushcfunction(L, fields_reader);          // +1
      lua_pushcclosure(L, methods_then_fields, 2);  // -2 +1
    }
    lua_setfield(L, meta, "__index");  // -1 the closure, or the methods themselves
    if (t.own_metatables && fields_reader) {
      lua_createtable(L, 0, 1);                 // +1 the metatable of each object's __index table
      lua_pushcfunction(L, fields_reader);      // +1
      lua_pushcclosure(L, object_fields, 1);    // -1 +1
      lua_setfield(L, -2, "__index");           // -1
      lua_rawsetp(L, meta, &kObjectFieldsKey);  // -1
    }
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
  // "warplab.array.__index": a call by hand is named too; a method that is also a
  // metamethod (m.free, __close) keeps its method's name.
  name_functions(L, meta, t.name, '.', true);
  lua_settop(L, meta - 1 - nup);  // -meta -upvalues
}

void set_object_metatable(lua_State* L, int idx, const char* name) {
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 8, name);
  luaL_getmetatable(L, name);  // +1 the type's
  const int type = lua_gettop(L), own = type + 1, methods = type + 2, index = type + 3;
  lua_createtable(L, 0, 16);  // +1 own
  copy_entries(L, type, own);
  lua_getfield(L, type, "methods");  // +1 (raw: a metatable has none of its own)
  lua_createtable(L, 0, 8);          // +1 index: the methods, and the object for its fields
  copy_entries(L, methods, index);
  lua_pushvalue(L, idx);                    // +1
  lua_rawsetp(L, index, &kObjectKey);       // -1
  lua_rawgetp(L, type, &kObjectFieldsKey);  // +1
  lua_setmetatable(L, index);               // -1
  lua_setfield(L, own, "__index");          // -1 index
  lua_pop(L, 1);                            // -1 methods
  lua_pushvalue(L, type);                   // +1
  lua_rawsetp(L, own, &kTypeKey);           // -1
  lua_setmetatable(L, idx);                 // -1 own (its __gc copied: the object is finalized)
  lua_pop(L, 1);                            // -1 type
}

void* test_udata(lua_State* L, int idx, const char* name) {
  if (void* p = luaL_testudata(L, idx, name)) return p;
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return nullptr;  // +1 its metatable
  lua_rawgetp(L, -1, &kTypeKey);                                                       // +1 the type's or nil
  luaL_getmetatable(L, name);                                                          // +1
  const bool same = lua_type(L, -1) == LUA_TTABLE && lua_rawequal(L, -1, -2);
  lua_pop(L, 3);  // -3
  return same ? lua_touserdata(L, idx) : nullptr;
}

}  // namespace warplab::bind
