// launch_table.hpp: reading a launch's configuration from Lua: a dimension (a number or
// a list of 1 to 3), the launch table {grid=, block=, shared=, stream=, cooperative=,
// cluster=, args={...}} and its argument list. The functions that read a launch table
// are C closures whose upvalues are the table's keys (push_launch_keys): a plain table
// is read in one pass over its entries, keys told apart by their interned address, so
// absent fields cost nothing and no key is looked up by a C string.
#pragma once
#include <lua.hpp>

#include "cu/launch.hpp"

namespace warplab::bind {

struct Runtime;

// The upvalue index of each key (push_launch_keys pushes them in this order); the launch
// table's fields are kGrid..kArgs; kCount is the args list's `n`.
enum LaunchKey : int { kGrid = 1, kBlock, kShared, kStream, kCooperative, kCluster, kArgs, kCount };
inline constexpr int kLaunchFields = kArgs;
inline constexpr int kLaunchKeys = kCount;

// Pushes the kLaunchKeys key strings, for lua_pushcclosure / luaL_setfuncs.
void push_launch_keys(lua_State* L);

// A dimension at idx: an integer >= 0 or a list of 1 to 3 of them. Zero passes here so
// that validation names it ("has a zero dimension") and k:check can answer false for it.
cu::Dim3 check_dim(lua_State* L, int idx, const char* what);

// Pushes the launch table's fields (table at absolute index idx), kLaunchFields values in
// LaunchKey order, nil where absent; returns the index of the first (grid). A table with
// a metatable is asked key by key (its __index may supply fields).
int push_fields(lua_State* L, int idx, Runtime& rt);
// The configuration from the fields pushed at f (push_fields).
cu::LaunchConfig read_config(lua_State* L, int f);
// push_fields + read_config, the fields dropped again.
cu::LaunchConfig config_from_table(lua_State* L, int idx);

// Pushes the elements of the args list at idx (nil: none); returns how many. A list with
// nil holes (a null pointer) counts to its `n` field when it has one, as table.pack makes.
int push_args(lua_State* L, int idx);

}  // namespace warplab::bind
