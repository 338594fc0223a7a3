// metatable.hpp: the one way a Lua type is registered, as Lua's liolib.c makes its file
// handles' (createmeta): the type's luaL_Reg tables (metamethods, methods) and the names of
// its fields become one locked metatable in the registry; and finalize, the end of every
// __gc.
#pragma once
#include <lua.hpp>

#include <memory>

#include "bind/args.hpp"

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
  // What the docs call an object of the type ("k" for a kernel): its methods are named
  // "k:launch" where Lua cannot name a call (function_name).
  const char* var = nullptr;
  // Each object gets a metatable of its own (set_object_metatable), made from the type's,
  // whose __index is a table: a method call (k:launch) finds its method by one table
  // lookup inside Lua, with no C call; a key that names no method reaches the fields reader
  // with the object. For the type whose method calls are the launch path.
  bool own_metatables = false;
};

// Creates the metatable of `t` in the registry and leaves the stack as it was (less
// t.upvalues). __index looks the methods up first, in an upvalue (one raw lookup and
// nothing that can throw: what k:launch's path wants), then calls the meta's __index with
// the object and the key; a type without methods gets its __index as is, a type without
// an __index its methods table.
void register_type(lua_State* L, const LuaType& t);
// Gives the userdata at idx a metatable of its own made from type `name`'s (registered with
// own_metatables): the same metamethods, lock, `methods` and `__fields`, and as __index a
// table of the methods that holds the object for its fields reader. The stack is left as
// it was.
void set_object_metatable(lua_State* L, int idx, const char* name);
// The userdata at idx when its metatable is type `name`'s or one made from it
// (set_object_metatable), else nullptr: luaL_testudata for every type. The stack is left
// as it was.
void* test_udata(lua_State* L, int idx, const char* name);

// Records the name of each function in the table at idx as PREFIX SEP KEY ("cuda.array",
// "k:launch"), for the argument errors of a call Lua cannot name (args.hpp); the stack is
// left as it was. register_type names each type's methods, open_cuda the cuda and warplab
// tables' functions. With `keep`, a function that has a name already keeps it.
void name_functions(lua_State* L, int idx, const char* prefix, char sep, bool keep = false);
// The name recorded for the function at idx, or nullptr (the stack is left as it was; the
// string stays valid while the function does).
const char* function_name(lua_State* L, int idx);

// Gives the userdata at idx its type's finalized metatable (register_type makes one for
// each type with a __gc): no __gc, so no second finalizer after a resurrection, and every
// use (by another finalizer that still holds the object, at the end of a run) raises
// "attempt to use a module after its finalizer ran (...)", never a use of freed memory.
void set_finalized(lua_State* L, int idx);
// The sentence when the value at idx is a finalized object (for arg_udata), else nullptr.
const char* finalized_sentence(lua_State* L, int idx);

// The end of a __gc: destroys the T in the userdata at index 1 of metatable `name`, then
// set_finalized.
template <class T>
int finalize(lua_State* L, const char* name) {
  std::destroy_at(static_cast<T*>(arg_udata(L, 1, name)));
  set_finalized(L, 1);
  return 0;
}

}  // namespace warplab::bind
