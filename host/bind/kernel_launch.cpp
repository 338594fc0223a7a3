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
#include "bind/launch_table.hpp"
#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "cu/launch.hpp"

namespace warplab::bind {
namespace {

// The device limits of the runtime's target, read once.
const cu::DeviceLimits& limits_of(Runtime& rt) {
  if (!rt.limits) [[unlikely]] rt.limits = cu::device_limits(rt.target);
  return *rt.limits;
}

// The configuration's first broken rule, or "": the limits (works offline), then for a
// cluster on a GPU whether the driver can schedule it at all.
std::string why_not(Runtime& rt, const KernelObj& k, const cu::LaunchConfig& c) {
  try {
    cu::validate(c, k.limits, limits_of(rt));
    if (k.fn && c.clustered()) cu::validate_clusters(*k.fn, c);
  } catch (const cu::Error& e) {
    return e.what();  // raised by the caller, once the exception is gone (guard.hpp)
  }
  return {};
}

// Everything a launch checks, before the driver sees it: the configuration against the
// limits (the message names the kernel), the arguments into the kernel's buffer, a GPU.
void prepare(lua_State* L, Runtime& rt, KernelObj& k, const cu::LaunchConfig& c, int first, int n) {
  if (rt.opts.check) {
    const std::string why = why_not(rt, k, c);  // empty: no allocation
    if (!why.empty()) luaL_error(L, "%s: %s", k.display.c_str(), why.c_str());
  }
  marshal(L, rt, k, first, n);
  if (!k.fn) require_gpu(L, "a kernel launch");
}

// Launches with the prepared arguments, noted for fault attribution (script line of the
// caller). A launch the driver refused never ran, so its note goes again: after an
// earlier kernel faulted, the error then names that kernel, not this one.
void launch_noted(lua_State* L, Runtime& rt, KernelObj& k, const cu::LaunchConfig& c) {
  k.last_launch = {c.block.x * c.block.y * c.block.z, c.shared_bytes};  // for `warplab watch` (lab/deps.hpp)
  note_launch(L, rt.faults, k.display, c, k.limits);
  try {
    cu::launch(*k.fn, c, k.argptrs.data());
  } catch (const cu::Error&) {
    forget_launch(L);
    throw;
  }
}

void do_launch(lua_State* L, Runtime& rt, KernelObj& k, const cu::LaunchConfig& c, int first, int n) {
  prepare(L, rt, k, c, first, n);
  launch_noted(L, rt, k, c);
  if (rt.opts.sync) checked_sync(L, [&] { rt.context->synchronize(); });
}

WL_LUA_FN(kernel_launch) {
  Runtime& rt = runtime(L);
  KernelObj& k = *check_kernel(L, 1, rt);
  cu::LaunchConfig c;
  c.grid = check_dim(L, 2, "grid");
  c.block = check_dim(L, 3, "block");
  do_launch(L, rt, k, c, 4, lua_gettop(L) - 3);
  return 0;
}

// k:check{grid=, block=, shared=, cooperative=, cluster=} -> true | false, why (works
// offline; on a GPU a cluster is also asked of the driver).
WL_LUA_FN(kernel_check) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  const std::string why = why_not(runtime(L), k, c);
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
  const int f = push_fields(L, 2, runtime(L));                           // +fields
  const cu::LaunchConfig c = read_config(L, f);
  const int warmup = count_option(L, "warmup", 5), reps = count_option(L, "reps", 100);
  luaL_argcheck(L, reps >= 1, 2, "warmup must be >= 0 and reps >= 1");
  const int n = push_args(L, f + kArgs - kGrid);                         // +n
  Runtime& rt = runtime(L);
  prepare(L, rt, k, c, lua_gettop(L) - n + 1, n);  // checks everything once; the launches reuse the arguments
  launch_noted(L, rt, k, c);  // one untimed launch even with warmup = 0: it loads the code
  for (int i = 1; i < warmup; ++i) cu::launch(*k.fn, c, k.argptrs.data());
  std::vector<cu::Event> ev;
  ev.reserve(2 * static_cast<std::size_t>(reps));
  for (int i = 0; i < 2 * reps; ++i) ev.emplace_back(rt.context);
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

// k{grid=, block=, ...}
int kernel_call(lua_State* L) {
  return guard(L, [L] {
    Runtime& rt = runtime(L);
    KernelObj& k = *check_kernel(L, 1, rt);
    luaL_checktype(L, 2, LUA_TTABLE);
    const int f = push_fields(L, 2, rt);                                 // +fields
    const cu::LaunchConfig c = read_config(L, f);
    const int n = push_args(L, f + kArgs - kGrid);                       // +n
    do_launch(L, rt, k, c, lua_gettop(L) - n + 1, n);
    return 0;
  });
}

}  // namespace

void add_kernel_launch(lua_State* L) {
  const luaL_Reg methods[] = {{"launch", kernel_launch}, {"check", kernel_check},
                              {"bench", kernel_bench}, {"clusters", kernel_clusters},
                              {nullptr, nullptr}};
  push_launch_keys(L);                                                   // +keys
  luaL_setfuncs(L, methods, kLaunchKeys);                                // -keys
}

void push_kernel_call(lua_State* L) {
  push_launch_keys(L);                                                   // +keys
  lua_pushcclosure(L, kernel_call, kLaunchKeys);                         // -keys +1
}

}  // namespace warplab::bind
