// launch_table.hpp: reading a launch's configuration from Lua: a dimension (a number or
// a list of 1 to 3), the launch table {grid=, block=, shared=, stream=, cooperative=,
// cluster=, args={...}} and its argument list. The functions that read a launch table
// are C closures whose upvalues are the table's keys (push_launch_keys), so no key is
// looked up by a C string: the usual table is read in one pass over its entries, keys
// told apart by their interned address; any other field by field, one lookup of an
// interned key each (through the metatable of a table that has one: its __index may
// supply fields).
#pragma once
#include <lua.hpp>

#include "cu/launch.hpp"

namespace warplab::bind {

// The upvalue index of each key (push_launch_keys pushes them in this order); the launch
// table's fields are kGrid..kArgs; kCount is the args list's `n`.
enum LaunchKey : int { kGrid = 1, kBlock, kShared, kStream, kCooperative, kCluster, kArgs, kCount };
inline constexpr int kLaunchKeys = kCount;

// Pushes the kLaunchKeys key strings, for lua_pushcclosure / luaL_setfuncs.
void push_launch_keys(lua_State* L);

// A dimension at idx: an integer >= 0 or a list of 1 to 3 of them. Zero passes here so
// that validation names it ("has a zero dimension") and k:check can answer false for it.
cu::Dim3 check_dim(lua_State* L, int idx, const char* what);

// A launch table, read: its configuration and, when asked for, its argument list's
// elements, pushed at stack [first, first + n).
struct TableLaunch {
  cu::LaunchConfig config;
  int first = 0, n = 0;
};
// Reads the launch table at the absolute index idx, leaving its fields' values on the
// stack (below the arguments). The args list: a list of values, nil for none; one with nil
// holes (a null pointer) counts to its `n` field when it has one, as table.pack makes.
TableLaunch read_launch_table(lua_State* L, int idx, bool with_args);
// The configuration alone; the stack is left as it was.
cu::LaunchConfig config_from_table(lua_State* L, int idx);

}  // namespace warplab::bind
