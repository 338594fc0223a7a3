// args.hpp: reading arguments off the Lua stack, for the binding files: the one integer
// reader, options tables (options.cpp), a launch's configuration and argument list
// (launch_args.cpp) and cuda.compile's table (compile_args.cpp). Each misuse raises its
// one sentence.
#pragma once
#include <lua.hpp>

#include <climits>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>

#include "cu/launch.hpp"
#include "lab/fault.hpp"
#include "lab/module.hpp"

namespace warplab::bind {

struct StateRecord;

// ---- numbers ------------------------------------------------------------------------------

// The one integer reader: the value at idx as an integer in [lo, hi], as Lua converts it
// (lua_tointegerx: an integer, or a float or numeric string with an integral value, so
// 256.0 and 2^8 are 256): true with `out` set, else false (the caller words the sentence).
inline bool read_integer(lua_State* L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer& out) {
  int exact = 0;
  out = lua_tointegerx(L, idx, &exact);
  return exact && out >= lo && out <= hi;
}
// ---- plain arguments, the function named (args.cpp) ------------------------------------------

// Lua's luaL_check* name the function from the calling code, and a call Lua cannot name
// (pcall(k.counters, k, 5), coroutine.wrap(e.elapsed), a tail call) says "bad argument #2
// to '?'". These say the same sentences, naming such a call by what register_type and
// open_cuda recorded ('k:counters', 'cuda.array': metatable.hpp's function_name).
[[noreturn]] void arg_error(lua_State* L, int arg, const char* msg);
// "bad argument #2 to 'k:counters' (table expected, got number)"; `expected` names the type.
[[noreturn]] void arg_type_error(lua_State* L, int arg, const char* expected);
inline void arg_check_type(lua_State* L, int arg, int type) {
  if (lua_type(L, arg) != type) [[unlikely]]
    arg_type_error(L, arg, lua_typename(L, type));
}
// The userdata at arg when its metatable is registry[meta] or one made from it
// (luaL_checkudata's test, as test_udata in metatable.hpp tells it).
void* arg_udata(lua_State* L, int arg, const char* meta);
lua_Integer arg_integer(lua_State* L, int arg);
lua_Integer arg_opt_integer(lua_State* L, int arg, lua_Integer dflt);
lua_Number arg_opt_number(lua_State* L, int arg, lua_Number dflt);
const char* arg_string(lua_State* L, int arg, std::size_t* len = nullptr);

// ---- options tables (options.cpp) -----------------------------------------------------------

// An options table at idx (cuda.stream{...}, a:copy(b, {...}), ...): nothing, or a table
// whose every key is one of `names`; else raises "<who> takes nothing or a table of
// options, got number" or "<who>: unknown option 'x' (options: a, b)". Stack unchanged.
void check_option_keys(lua_State* L, int idx, const char* who, std::initializer_list<const char*> names);
// The boolean option t.name, or `dflt` when absent (or t is not a table); any other value
// raises "<who>: <name> must be true or false, got number". Stack unchanged.
bool bool_option(lua_State* L, int t, const char* name, bool dflt, const char* who);
// A count option t.name (k:bench's, cuda.bench's): an integer lo..hi, or `dflt` when absent
// or when t is not a table; else raises "<who>: <name> must be an integer from lo to hi,
// got x". Stack unchanged.
int count_option(lua_State* L, int t, const char* name, int dflt, int lo, int hi, const char* who);
// The most timed calls (and warmup calls) k:bench and cuda.bench make: each timed call
// holds two events, allocated before the first.
inline constexpr int kMaxBenchReps = 1000000;

// ---- launch_args.cpp ----------------------------------------------------------------------

// The launch table's keys, as upvalues of the C closures that read launch tables, so no
// key is looked up by a C string: the usual table is read in one pass over its entries,
// keys told apart by their interned address; any other field by field, one lookup of an
// interned key each (through the metatable of a table that has one: its __index may
// supply fields). The upvalue index of each key: the fields are kGrid..kArgs; kCount is
// the args list's `n`.
enum LaunchKey : int { kGrid = 1, kBlock, kShared, kStream, kCooperative, kCluster, kArgs, kCount };
inline constexpr int kLaunchKeys = kCount;
// Pushes the kLaunchKeys key strings, for lua_pushcclosure / luaL_setfuncs.
void push_launch_keys(lua_State* L);

// A dimension at idx: an integer >= 0 or a list of 1 to 3 of them. Zero passes here so
// that validation names it ("has a zero dimension") and k:check can answer false for it.
// The usual integer is read inline; anything else, and every error, is dim_list's.
cu::Dim3 dim_list(lua_State* L, int idx, const char* what);
inline cu::Dim3 check_dim(lua_State* L, int idx, const char* what) {
  lua_Integer n = 0;
  if (read_integer(L, idx, 0, UINT_MAX, n)) [[likely]]
    return {static_cast<unsigned>(n), 1, 1};
  return dim_list(L, idx, what);
}

// A launch table, read: its configuration and, when asked for, its argument list's
// elements, pushed at stack [first, first + n); `stream_at`, where its stream's value
// lies (0: none).
struct TableLaunch {
  cu::LaunchConfig config;
  int first = 0, n = 0, stream_at = 0;
};
// Reads the launch table at the absolute index idx, leaving its fields' values on the
// stack (below the arguments). The args list: a list of values, nil for none; one with nil
// holes (a null pointer) counts to its `n` field when it has one, as table.pack makes.
// Each field is read before the stream is taken: a field's __index may run Lua code,
// which may free the stream. The caller reads whatever else the table holds (k:bench's
// reps) before this, so nothing runs Lua code between the stream's check and its use.
TableLaunch read_launch_table(lua_State* L, int idx, bool with_args);
// The stream of `t` checked again: after marshal's sentence was made (an allocation, which
// may run a finalizer that frees the stream), before lab::launch checks the configuration.
void recheck_stream(lua_State* L, TableLaunch& t);
// The configuration alone; the stack is left as it was.
cu::LaunchConfig config_from_table(lua_State* L, int idx);

// The arguments at stack [first, first + n) into k's parameter buffer, checked against the
// signature (types and ranges only with opts.check): nullptr, or the sentence for the first
// that does not fit (the count, or "argument 2 (int) of k: ..."), pushed on the stack for
// lab::launch to raise after the configuration's checks. Allocates nothing unless it fails.
const char* marshal(lua_State* L, StateRecord& st, lab::KernelObj& k, int first, int n);
// Where the running C function was called from: the calling Lua function's chunk name
// (read again only when the function differs from the last launch's) and current line.
lab::Where launch_site(lua_State* L, StateRecord& st);

// ---- compile_args.cpp ---------------------------------------------------------------------

// cuda.compile(path | {...})'s arguments at idx as a spec, into `spec`. Misuse (wrong
// field types, unknown fields) raises; a file that cannot be found or read returns the
// sentence (an environment failure the script may handle), else nullopt.
std::optional<std::string> spec_from_args(lua_State* L, int idx, lab::ModuleSpec& spec);

}  // namespace warplab::bind
