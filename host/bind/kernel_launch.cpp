// kernel_launch.cpp: k:launch(grid, block, args...), k{grid=, block=, shared=, stream=,
// cooperative=, cluster=, args={...}}, k:check{...}, k:bench{...} and k:clusters{...}.
// Before the driver sees a launch, the configuration is checked against the device's
// limits (a cluster also against cuOccupancyMaxActiveClusters on a GPU) and every
// argument against the kernel's parameter types (kernel_args.cpp). Nothing on the launch
// path allocates: the argument buffer is the kernel's own, the limits are cached.
#include <climits>
#include <string>
#include <vector>

#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "bind/stream.hpp"
#include "cu/launch.hpp"

namespace warplab::bind {
namespace {

// A dimension: a number or a list of 1 to 3. Zero passes here so that validation names
// it ("has a zero dimension") and k:check can answer false for it.
cu::Dim3 check_dim(lua_State* L, int idx, const char* what) {
  cu::Dim3 d;
  unsigned* v[3] = {&d.x, &d.y, &d.z};
  auto take = [&](int i, int at) {
    int exact = 0;
    const lua_Integer n = lua_tointegerx(L, at, &exact);  // 256.0 is 256
    if (!exact || n < 0 || n > UINT_MAX)
      luaL_error(L, "%s must be an integer >= 0 or a list of 1 to 3 of them (got %s)", what,
                 luaL_tolstring(L, at, nullptr));
    *v[i] = static_cast<unsigned>(n);
  };
  if (lua_istable(L, idx)) {
    const auto n = lua_rawlen(L, idx);
    if (n < 1 || n > 3) luaL_error(L, "%s must have 1 to 3 dimensions, got %d", what, static_cast<int>(n));
    for (int i = 0; i < static_cast<int>(n); ++i) {
      lua_rawgeti(L, idx, i + 1);                                        // +1
      take(i, lua_gettop(L));
      lua_pop(L, 1);                                                     // -1
    }
  } else {
    take(0, idx);
  }
  return d;
}

// Reads grid/block/shared/stream/cooperative/cluster from the table at idx.
cu::LaunchConfig config_from_table(lua_State* L, int idx) {
  cu::LaunchConfig c;
  if (lua_getfield(L, idx, "grid") == LUA_TNIL) luaL_error(L, "launch table needs grid =");  // +1
  c.grid = check_dim(L, lua_gettop(L), "grid");
  if (lua_getfield(L, idx, "block") == LUA_TNIL) luaL_error(L, "launch table needs block =");  // +1
  c.block = check_dim(L, lua_gettop(L), "block");
  if (lua_getfield(L, idx, "shared") != LUA_TNIL) {                     // +1
    int exact = 0;
    const lua_Integer s = lua_tointegerx(L, -1, &exact);
    if (!exact || s < 0 || s > UINT_MAX)
      luaL_error(L, "shared must be a byte count >= 0, got %s", luaL_tolstring(L, -1, nullptr));
    c.shared_bytes = static_cast<unsigned>(s);
  }
  lua_getfield(L, idx, "stream");                                        // +1
  c.stream = opt_stream(L, lua_gettop(L));
  lua_getfield(L, idx, "cooperative");                                   // +1
  c.cooperative = lua_toboolean(L, -1);
  if (lua_getfield(L, idx, "cluster") != LUA_TNIL)                       // +1
    c.cluster = check_dim(L, lua_gettop(L), "cluster");  // a zero is named by validate()
  lua_settop(L, idx);                                                    // drop the fields
  return c;
}

// The configuration's first broken rule, or "": the limits (works offline), then for a
// cluster on a GPU whether the driver can schedule it at all.
std::string why_not(lua_State* L, const KernelObj& k, const cu::LaunchConfig& c) {
  try {
    cu::validate(c, k.limits, device_limits(L));
    if (k.fn && c.clustered()) cu::validate_clusters(*k.fn, c);
  } catch (const cu::Error& e) {
    return e.what();  // raised by the caller, once the exception is gone (guard.hpp)
  }
  return {};
}

// Everything a launch checks, before the driver sees it: the configuration against the
// limits (the message names the kernel), the arguments into the kernel's buffer, a GPU.
void prepare(lua_State* L, KernelObj& k, const cu::LaunchConfig& c, int first, int n) {
  const bool check = runtime(L).opts.check;
  if (check) {
    const std::string why = why_not(L, k, c);
    if (!why.empty()) luaL_error(L, "%s: %s", k.display.c_str(), why.c_str());
  }
  marshal(L, k, first, n, check);
  if (!k.fn) require_gpu(L, "a kernel launch");
}

// Launches with the prepared arguments, noted for fault attribution (script line of the
// caller). A launch the driver refused never ran, so its note goes again: after an
// earlier kernel faulted, the error then names that kernel, not this one.
void launch_noted(lua_State* L, KernelObj& k, const cu::LaunchConfig& c) {
  note_launch(L, k.display.c_str(), c, k.limits);
  try {
    cu::launch(*k.fn, c, k.argptrs.data());
  } catch (const cu::Error&) {
    forget_launch(L);
    throw;
  }
}

void do_launch(lua_State* L, KernelObj& k, const cu::LaunchConfig& c, int first, int n) {
  prepare(L, k, c, first, n);
  launch_noted(L, k, c);
  Runtime& rt = runtime(L);
  if (rt.opts.sync) checked_sync(L, [&] { rt.context->synchronize(); });
}

WL_LUA_FN(kernel_launch) {
  KernelObj& k = *check_kernel(L, 1);
  cu::LaunchConfig c;
  c.grid = check_dim(L, 2, "grid");
  c.block = check_dim(L, 3, "block");
  do_launch(L, k, c, 4, lua_gettop(L) - 3);
  return 0;
}

// Pushes the elements of the table's args list onto the stack; returns how many. A
// list with nil holes (a null pointer) counts to its `n` field when it has one, as
// table.pack(...) makes it; else to its length.
int push_args(lua_State* L, int idx) {
  if (lua_getfield(L, idx, "args") != LUA_TTABLE) {                     // +1
    if (!lua_isnil(L, -1)) luaL_error(L, "args must be a list");
    lua_pop(L, 1);                                                       // -1
    return 0;
  }
  const int list = lua_gettop(L);
  lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, list));
  if (lua_getfield(L, list, "n") == LUA_TNUMBER && lua_isinteger(L, -1)) n = lua_tointeger(L, -1);  // +1
  lua_pop(L, 1);                                                         // -1
  if (n < 0 || n > 4096) luaL_error(L, "args.n = %I is not an argument count", n);
  luaL_checkstack(L, static_cast<int>(n), "too many kernel arguments");
  for (lua_Integer i = 1; i <= n; ++i) lua_rawgeti(L, list, i);          // +n
  lua_remove(L, list);  // -1: the arguments now start where the list was
  return static_cast<int>(n);
}

// k:check{grid=, block=, shared=, cooperative=, cluster=} -> true | false, why (works
// offline; on a GPU a cluster is also asked of the driver).
WL_LUA_FN(kernel_check) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  const std::string why = why_not(L, k, c);
  lua_pushboolean(L, why.empty());                                       // +1
  if (why.empty()) return 1;
  lua_pushstring(L, why.c_str());                                        // +1
  return 2;
}

// k:clusters{grid=, block=, cluster=, shared=} -> how many such clusters can be resident
// at once (cuOccupancyMaxActiveClusters), or nil and why: a broken rule, or no GPU.
WL_LUA_FN(kernel_clusters) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  if (!c.clustered()) luaL_error(L, "clusters: the launch table needs cluster =");
  std::string why;
  try {
    cu::validate(c, k.limits, device_limits(L));
  } catch (const cu::Error& e) {
    why = e.what();
  }
  if (why.empty() && !k.fn) why = "cuOccupancyMaxActiveClusters needs a GPU (" + runtime(L).offline_reason + ")";
  if (!why.empty()) {
    luaL_pushfail(L);                                                    // +1
    lua_pushstring(L, why.c_str());                                      // +1
    return 2;
  }
  lua_pushinteger(L, cu::max_active_clusters(*k.fn, c));                 // +1
  return 1;
}

// A count option of k:bench: an integer >= 0, or `dflt` when absent.
int count_option(lua_State* L, const char* name, int dflt) {
  int exact = lua_getfield(L, 2, name) == LUA_TNIL;                      // +1
  const lua_Integer v = exact ? dflt : lua_tointegerx(L, -1, &exact);
  if (!exact || v < 0 || v > INT_MAX) luaL_error(L, "bench: %s must be an integer >= 0", name);
  lua_pop(L, 1);                                                         // -1
  return static_cast<int>(v);
}

// k:bench{grid=, block=, shared=, stream=, args={}, warmup=5, reps=100}
WL_LUA_FN(kernel_bench) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  const int warmup = count_option(L, "warmup", 5), reps = count_option(L, "reps", 100);
  luaL_argcheck(L, reps >= 1, 2, "warmup must be >= 0 and reps >= 1");
  const int n = push_args(L, 2);
  prepare(L, k, c, 3, n);  // checks everything once; the launches reuse the arguments
  launch_noted(L, k, c);   // one untimed launch even with warmup = 0: it loads the code
  for (int i = 1; i < warmup; ++i) cu::launch(*k.fn, c, k.argptrs.data());
  std::vector<cu::Event> ev;
  ev.reserve(2 * static_cast<std::size_t>(reps));
  for (int i = 0; i < 2 * reps; ++i) ev.emplace_back(runtime(L).context);
  for (int i = 0; i < reps; ++i) {
    ev[2 * i].record(c.stream);
    cu::launch(*k.fn, c, k.argptrs.data());
    ev[2 * i + 1].record(c.stream);
  }
  checked_sync(L, [&] { ev.back().synchronize(); });
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) ms[i] = cu::elapsed_ms(ev[2 * i], ev[2 * i + 1]);
  push_timing(L, std::move(ms));
  return 1;
}

}  // namespace

// k{grid=, block=, ...}
int kernel_call(lua_State* L) {
  return guard(L, [L] {
    KernelObj& k = *check_kernel(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    const cu::LaunchConfig c = config_from_table(L, 2);
    const int n = push_args(L, 2);
    do_launch(L, k, c, lua_gettop(L) - n + 1, n);
    return 0;
  });
}

void add_kernel_launch(lua_State* L) {
  const luaL_Reg methods[] = {{"launch", kernel_launch}, {"check", kernel_check},
                              {"bench", kernel_bench}, {"clusters", kernel_clusters},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
}

}  // namespace warplab::bind
