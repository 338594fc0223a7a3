// launch_table.cpp: see launch_table.hpp (check_dim is launch_dim.cpp's). All of it is on
// the launch path: the usual case looks nothing up by text and builds no message; errors
// are worded once they are certain.
#include "bind/launch_table.hpp"

#include <algorithm>
#include <climits>

#include "bind/runtime.hpp"
#include "bind/stream.hpp"

namespace warplab::bind {
namespace {

// Pushes t[key] for the table t at idx (through its metatable, if any); returns its type.
int field(lua_State* L, int idx, LaunchKey key) {
  lua_pushvalue(L, lua_upvalueindex(key));  // +1 the interned key
  return lua_gettable(L, idx);              // -1 +1 value
}

// Pushes the elements of the list at idx, the stack's top being `top`; returns how many.
// A list with nil holes (a null pointer) counts to its `n` field when it has one.
int push_list(lua_State* L, int idx, int top) {
  lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
  lua_pushvalue(L, lua_upvalueindex(kCount));                                               // +1 "n"
  if (lua_rawget(L, idx) == LUA_TNUMBER && lua_isinteger(L, -1)) n = lua_tointeger(L, -1);  // -1 +1 n
  lua_pop(L, 1);                                                                            // -1
  if (n < 0 || n > 4096) luaL_error(L, "args.n = %I is not an argument count", n);
  // Room for the arguments and what the launch pushes after them (the fault note's): a C
  // function is given LUA_MINSTACK free slots, enough for the usual few.
  if (top + n + 4 > LUA_MINSTACK) luaL_checkstack(L, static_cast<int>(n) + 4, "too many kernel arguments");
  for (lua_Integer i = 1; i <= n; ++i) lua_rawgeti(L, idx, i);  // +n
  return static_cast<int>(n);
}

// The usual launch table, plain, with integer grid and block >= 1 and an args list, in
// one pass over its entries (lua_next), keys told apart by their interned address
// (Runtime::launch_keys): a cost per entry present, none per field absent. Anything else
// (a list for a dimension, a zero, a missing or bad field, shared, stream, cooperative or
// cluster present) returns false with the stack as it was, for read_fields.
bool read_plain(lua_State* L, int idx, Runtime& rt, bool with_args, TableLaunch& t) {
  const void** keys = rt.launch_keys;
  if (!keys[0]) [[unlikely]]
    for (int k = 0; k < kArgs; ++k) keys[k] = lua_topointer(L, lua_upvalueindex(k + 1));
  const int list = lua_gettop(L) + 1;
  lua_pushnil(L);  // +1 the args list's slot
  lua_pushnil(L);  // +1 the first key
  unsigned seen = 0;
  while (lua_next(L, idx)) {  // -1 +2 key, value
    const void* key = lua_topointer(L, -2);
    int usual = 1;
    lua_Integer n = 1;
    if (key == keys[kGrid - 1] || key == keys[kBlock - 1]) {
      n = lua_tointegerx(L, -1, &usual);
      (key == keys[kGrid - 1] ? t.config.grid : t.config.block) = {static_cast<unsigned>(n), 1, 1};
      seen |= key == keys[kGrid - 1] ? 1u : 2u;
    } else if (key == keys[kArgs - 1]) {
      usual = lua_type(L, -1) == LUA_TTABLE;
      lua_copy(L, -1, list);
      seen |= 4u;
    } else if (key) {  // one of the other fields, or a key of the caller's own
      usual = std::find(keys + kShared - 1, keys + kCluster, key) == keys + kCluster;
    }
    if (!usual || n < 1 || n > UINT_MAX) break;
    lua_pop(L, 1);  // -1 value
  }
  if (lua_gettop(L) != list || (seen & 3u) != 3u) {  // left early, or grid or block missing
    lua_settop(L, list - 1);                         // -slot (-key -value)
    return false;
  }
  if (with_args && (seen & 4u)) t.n = push_list(L, list, list);  // +n
  t.first = list + 1;
  return true;
}

// Any launch table, field by field in the fields' order, which words the first error.
TableLaunch read_fields(lua_State* L, int idx, bool with_args) {
  TableLaunch t;
  cu::LaunchConfig& c = t.config;
  if (field(L, idx, kGrid) == LUA_TNIL) luaL_error(L, "launch table needs grid =");  // +1
  c.grid = check_dim(L, -1, "grid");
  if (field(L, idx, kBlock) == LUA_TNIL) luaL_error(L, "launch table needs block =");  // +1
  c.block = check_dim(L, -1, "block");
  if (field(L, idx, kShared) != LUA_TNIL) {  // +1
    int exact = 0;
    const lua_Integer s = lua_tointegerx(L, -1, &exact);
    if (!exact || s < 0 || s > UINT_MAX)
      luaL_error(L, "shared must be a byte count >= 0, got %s", luaL_tolstring(L, -1, nullptr));
    c.shared_bytes = static_cast<unsigned>(s);
  }
  if (field(L, idx, kStream) != LUA_TNIL) c.stream = opt_stream(L, lua_gettop(L));   // +1
  c.cooperative = field(L, idx, kCooperative) != LUA_TNIL && lua_toboolean(L, -1);   // +1
  if (field(L, idx, kCluster) != LUA_TNIL) c.cluster = check_dim(L, -1, "cluster");  // +1; a zero: validate()
  if (!with_args) return t;
  const int args = lua_gettop(L) + 1;
  if (field(L, idx, kArgs) == LUA_TTABLE)
    t.n = push_list(L, args, args);  // +1 +n
  else if (!lua_isnil(L, args))
    luaL_error(L, "args must be a list");
  t.first = args + 1;
  return t;
}

}  // namespace

void push_launch_keys(lua_State* L) {
  for (const char* k : {"grid", "block", "shared", "stream", "cooperative", "cluster", "args", "n"})
    lua_pushstring(L, k);  // +1 each
}

TableLaunch read_launch_table(lua_State* L, int idx, bool with_args) {
  TableLaunch t;
  if (lua_getmetatable(L, idx))
    lua_pop(L, 1);  // +1 -1: its __index may supply fields
  else if (read_plain(L, idx, runtime(L), with_args, t))
    return t;
  return read_fields(L, idx, with_args);
}

cu::LaunchConfig config_from_table(lua_State* L, int idx) {
  const int top = lua_gettop(L);
  const cu::LaunchConfig c = read_launch_table(L, idx, false).config;  // +fields
  lua_settop(L, top);                                                  // -fields
  return c;
}

}  // namespace warplab::bind
