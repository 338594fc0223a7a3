// metatable.hpp: the one way a Lua type is registered, as Lua's liolib.c makes its file
// handles' (createmeta): the type's luaL_Reg tables (metamethods, methods) and the names of
// its fields become one locked metatable in the registry; and finalize, the end of every
// __gc.
#pragma once
#include <lua.hpp>

#include <memory>

namespace warplab::bind {

// A Lua type, as its binding file declares it.
struct LuaType {
  // The registry key of its metatable; what getmetatable(obj) answers (the metatable is
  // locked, sandbox.hpp) and what "bad argument #1 (... expected)" names.
  const char* name = nullptr;
  // Metamethods: __gc, __close, __tostring, __newindex, __len, __call, ... and __index, the
  // type's fields: it is called for a key that names no method, so methods come first.
  const luaL_Reg* meta = nullptr;
  // Methods, kept in the metatable's `methods` (the REPL completes from it). `shared`: more
  // of them, those the type shares with another (the two array kinds, elements.hpp).
  const luaL_Reg* methods = nullptr;
  const luaL_Reg* shared = nullptr;
  // The names its __index answers (nullptr-terminated), and `more_fields`, which adds those
  // that depend on the object (a module's kernels): called as more_fields(obj, list), it
  // appends to the list. Both are the metatable's __fields(obj), for the REPL's completion.
  const char* const* fields = nullptr;
  lua_CFunction more_fields = nullptr;
  // How many values on top of the stack (popped) are upvalues of every method and
  // metamethod but __index (the launch table's keys, for kernels).
  int upvalues = 0;
};

// Creates the metatable of `t` in the registry and leaves the stack as it was (less
// t.upvalues). __index looks the methods up first, in an upvalue (one raw lookup and
// nothing that can throw: what k:launch's path wants), then calls the meta's __index with
// the object and the key; a type without methods gets its __index as is, a type without
// an __index its methods table.
void register_type(lua_State* L, const LuaType& t);

// The end of a __gc: destroys the T in the userdata at index 1 of metatable `name` and
// takes its metatable away, so a later use (a second __gc after a resurrection, an object
// another finalizer still holds) is a type error, never a use of freed memory.
template <class T>
int finalize(lua_State* L, const char* name) {
  std::destroy_at(static_cast<T*>(luaL_checkudata(L, 1, name)));
  lua_pushnil(L);          // +1
  lua_setmetatable(L, 1);  // -1
  return 0;
}

}  // namespace warplab::bind
