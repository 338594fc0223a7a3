// launch_table.cpp: see launch_table.hpp. Everything here is on the launch path: the
// common case (a number for a dimension, fields present or absent) makes no string
// lookups by text and builds no message; errors are worded once they are certain.
#include "bind/launch_table.hpp"

#include <algorithm>
#include <climits>

#include "bind/runtime.hpp"
#include "bind/stream.hpp"

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

// Pushes t[key] for the table t at idx and returns its type: one raw lookup of the
// interned key (an upvalue) for a plain table, through the metatable otherwise.
template <bool Raw>
int field(lua_State* L, int idx, LaunchKey key) {
  lua_pushvalue(L, lua_upvalueindex(key));                 // +1 key
  return Raw ? lua_rawget(L, idx) : lua_gettable(L, idx);  // -1 +1 value
}

// Pushes the elements of the list at idx, the stack's top being `top`; returns how many.
// A list with nil holes (a null pointer) counts to its `n` field when it has one.
int push_list(lua_State* L, int idx, int top) {
  lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
  lua_pushvalue(L, lua_upvalueindex(kCount));                                                // +1 "n"
  if (lua_rawget(L, idx) == LUA_TNUMBER && lua_isinteger(L, -1)) n = lua_tointeger(L, -1);  // -1 +1 n
  lua_pop(L, 1);                                                                            // -1
  if (n < 0 || n > 4096) luaL_error(L, "args.n = %I is not an argument count", n);
  // Room for the arguments and what the launch pushes after them (the fault note's): a C
  // function is given LUA_MINSTACK free slots, enough for the usual few.
  if (top + n + 4 > LUA_MINSTACK) luaL_checkstack(L, static_cast<int>(n) + 4, "too many kernel arguments");
  for (lua_Integer i = 1; i <= n; ++i) lua_rawgeti(L, idx, i);  // +n
  return static_cast<int>(n);
}

// The args list at idx (nil: none) pushed; returns how many.
int push_args(lua_State* L, int idx) {
  if (lua_type(L, idx) == LUA_TTABLE) return push_list(L, idx, lua_gettop(L));  // +n
  if (!lua_isnil(L, idx)) luaL_error(L, "args must be a list");
  return 0;
}

// The addresses of the interned key strings (the upvalues keep them alive, so a key of
// any table with the same text is the same string), read once per state.
const void* const* key_addresses(lua_State* L, Runtime& rt) {
  if (!rt.launch_keys[0]) [[unlikely]]
    for (int k = 0; k < kArgs; ++k) rt.launch_keys[k] = lua_topointer(L, lua_upvalueindex(k + 1));
  return rt.launch_keys;
}

// The usual launch table, a plain table with grid and block integers >= 1 and an args
// list, in one pass over its entries (lua_next), keys told apart by their address: this
// costs per entry present, where asking for each field costs per field the table may
// have. Anything else (a list for a dimension, a zero, a missing or bad field, shared,
// stream, cooperative or cluster present) returns false with the stack as it was, for the
// ordered reader below, which also words the errors in the fields' order.
bool read_plain(lua_State* L, int idx, Runtime& rt, bool with_args, TableLaunch& t) {
  const void* const* keys = key_addresses(L, rt);
  const int list = lua_gettop(L) + 1;
  lua_pushnil(L);  // +1 the args list's slot
  lua_pushnil(L);  // +1 the first key
  unsigned seen = 0;
  bool usual = true;
  while (lua_next(L, idx)) {  // -1 +2 key, value
    const void* key = lua_topointer(L, -2);
    if (key == keys[kGrid - 1] || key == keys[kBlock - 1]) {
      int exact = 0;
      const lua_Integer n = lua_tointegerx(L, -1, &exact);
      if (!exact || n < 1 || n > UINT_MAX) {
        usual = false;
        break;
      }
      const bool grid = key == keys[kGrid - 1];
      (grid ? t.config.grid : t.config.block) = {static_cast<unsigned>(n), 1, 1};
      seen |= grid ? 1u : 2u;
    } else if (key == keys[kArgs - 1]) {
      if (lua_type(L, -1) != LUA_TTABLE) {
        usual = false;
        break;
      }
      lua_copy(L, -1, list);
      seen |= 4u;
    } else if (key && std::find(keys + kShared - 1, keys + kCluster, key) != keys + kCluster) {
      usual = false;
      break;
    }
    lua_pop(L, 1);  // -1 value
  }
  if (!usual || (seen & 3u) != 3u) {  // or grid or block missing
    lua_settop(L, list - 1);          // -slot (-key -value)
    return false;
  }
  if (with_args && (seen & 4u)) t.n = push_list(L, list, list);  // +n
  t.first = list + 1;
  return true;
}

template <bool Raw>
TableLaunch read(lua_State* L, int idx, bool with_args) {
  TableLaunch t;
  cu::LaunchConfig& c = t.config;
  if (field<Raw>(L, idx, kGrid) == LUA_TNIL) luaL_error(L, "launch table needs grid =");  // +1
  c.grid = check_dim(L, -1, "grid");
  if (field<Raw>(L, idx, kBlock) == LUA_TNIL) luaL_error(L, "launch table needs block =");  // +1
  c.block = check_dim(L, -1, "block");
  if (field<Raw>(L, idx, kShared) != LUA_TNIL) {  // +1
    int exact = 0;
    const lua_Integer s = lua_tointegerx(L, -1, &exact);
    if (!exact || s < 0 || s > UINT_MAX)
      luaL_error(L, "shared must be a byte count >= 0, got %s", luaL_tolstring(L, -1, nullptr));
    c.shared_bytes = static_cast<unsigned>(s);
  }
  if (field<Raw>(L, idx, kStream) != LUA_TNIL) c.stream = opt_stream(L, lua_gettop(L));  // +1
  c.cooperative = field<Raw>(L, idx, kCooperative) != LUA_TNIL && lua_toboolean(L, -1);  // +1
  if (field<Raw>(L, idx, kCluster) != LUA_TNIL)                                          // +1
    c.cluster = check_dim(L, -1, "cluster");  // a zero is named by validate()
  if (with_args) {
    field<Raw>(L, idx, kArgs);                 // +1
    t.n = push_args(L, lua_gettop(L));         // +n
    t.first = lua_gettop(L) - t.n + 1;
  }
  return t;
}

}  // namespace

void push_launch_keys(lua_State* L) {
  for (const char* k : {"grid", "block", "shared", "stream", "cooperative", "cluster", "args", "n"})
    lua_pushstring(L, k);  // +1 each
}

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

TableLaunch read_launch_table(lua_State* L, int idx, bool with_args) {
  if (lua_getmetatable(L, idx)) {  // +1
    lua_pop(L, 1);                 // -1
    return read<false>(L, idx, with_args);
  }
  TableLaunch t;
  if (read_plain(L, idx, runtime(L), with_args, t)) return t;
  return read<true>(L, idx, with_args);
}

cu::LaunchConfig config_from_table(lua_State* L, int idx) {
  const int top = lua_gettop(L);
  const cu::LaunchConfig c = read_launch_table(L, idx, false).config;  // +fields
  lua_settop(L, top);                                                   // -fields
  return c;
}

}  // namespace warplab::bind
