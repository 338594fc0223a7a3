// kernel_launch.cpp: k:launch(grid, block, args...), k{grid=, block=, shared=, stream=,
// cooperative=, cluster=, args={...}}, k:check{...}, k:bench{...} and k:clusters{...}.
// Before the driver sees a launch, the configuration is checked against the device's
// limits (a cluster also against cuOccupancyMaxActiveClusters on a GPU) and every
// argument against the kernel's parameter types (kernel_args.cpp); the rules are lab's
// (lab/launch.hpp). Nothing on the launch path allocates: the argument buffer is the
// kernel's own, the limits are cached.
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
  if (!rt.limits) [[unlikely]]
    rt.limits = cu::device_limits(rt.target);
  return *rt.limits;
}

// Everything a launch checks, before the driver sees it: the configuration against the
// limits (the message names the kernel), the arguments into the kernel's buffer, a GPU.
void prepare(lua_State* L, Runtime& rt, KernelObj& k, const cu::LaunchConfig& c, int first, int n) {
  if (rt.opts.check) {
    const std::string why = lab::why_not(k, c, limits_of(rt));  // empty: no allocation
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

// k{grid=, block=, ...}
WL_LUA_FN(kernel_call) {
  Runtime& rt = runtime(L);
  KernelObj& k = *check_kernel(L, 1, rt);
  luaL_checktype(L, 2, LUA_TTABLE);
  const TableLaunch t = read_launch_table(L, 2, true);  // +fields +n
  do_launch(L, rt, k, t.config, t.first, t.n);
  return 0;
}

// The arguments' checks of a launch, alone: (kernel, args...) -> nothing, or an error.
WL_LUA_FN(check_args) {
  marshal(L, runtime(L), *check_kernel(L, 1), 2, lua_gettop(L) - 1);
  return 0;
}

// k:check{grid=, block=, shared=, cooperative=, cluster=, args=} -> true | false, why
// (works offline; on a GPU a cluster is also asked of the driver). With args, they get
// the launch's checks too: count, types, integer ranges.
WL_LUA_FN(kernel_check) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  const bool has_args = lua_getfield(L, 2, "args") != LUA_TNIL;  // +1
  lua_pop(L, 1);                                                 // -1
  const TableLaunch t = read_launch_table(L, 2, has_args);       // +fields +n
  std::string why = lab::why_not(k, t.config, device_limits(L));
  if (why.empty() && has_args) {
    lua_pushcfunction(L, check_args);  // +1
    lua_pushvalue(L, 1);               // +1
    luaL_checkstack(L, t.n, "k:check");
    for (int i = 0; i < t.n; ++i) lua_pushvalue(L, t.first + i);  // +n
    if (lua_pcall(L, t.n + 1, 0, 0) != LUA_OK) {                  // -(n+2) +1
      why = luaL_tolstring(L, -1, nullptr);
      const std::string prefix = k.display + ": ";
      if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    }
  }
  lua_pushboolean(L, why.empty());  // +1
  if (why.empty()) return 1;
  lua_pushstring(L, why.c_str());  // +1
  return 2;
}

// k:clusters{grid=, block=, cluster=, shared=} -> how many such clusters can be resident
// at once (cuOccupancyMaxActiveClusters), or nil and why: a broken rule, or no GPU.
WL_LUA_FN(kernel_clusters) {
  KernelObj& k = *check_kernel(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const cu::LaunchConfig c = config_from_table(L, 2);
  if (!c.clustered()) luaL_error(L, "clusters: the launch table needs cluster =");
  std::string why = lab::limit_error(c, k.limits, device_limits(L));
  if (why.empty() && !k.fn)
    why = "cuOccupancyMaxActiveClusters needs a GPU (" + runtime(L).offline_reason + ")";
  if (!why.empty()) {
    luaL_pushfail(L);                // +1
    lua_pushstring(L, why.c_str());  // +1
    return 2;
  }
  lua_pushinteger(L, cu::max_active_clusters(*k.fn, c));  // +1
  return 1;
}

// A count option of k:bench: an integer >= 0, or `dflt` when absent.
int count_option(lua_State* L, const char* name, int dflt) {
  int exact = lua_getfield(L, 2, name) == LUA_TNIL;  // +1
  const lua_Integer v = exact ? dflt : lua_tointegerx(L, -1, &exact);
  if (!exact || v < 0 || v > INT_MAX) luaL_error(L, "bench: %s must be an integer >= 0", name);
  lua_pop(L, 1);  // -1
  return static_cast<int>(v);
}

// k:bench{grid=, block=, shared=, stream=, args={}, warmup=5, reps=100}: checks everything
// once, then launches reusing the marshaled arguments (lab::time_launches).
WL_LUA_FN(kernel_bench) {
  Runtime& rt = runtime(L);
  KernelObj& k = *check_kernel(L, 1, rt);
  luaL_checktype(L, 2, LUA_TTABLE);
  const TableLaunch t = read_launch_table(L, 2, true);  // +fields +n
  const int warmup = count_option(L, "warmup", 5), reps = count_option(L, "reps", 100);
  luaL_argcheck(L, reps >= 1, 2, "warmup must be >= 0 and reps >= 1");
  prepare(L, rt, k, t.config, t.first, t.n);
  launch_noted(L, rt, k, t.config);  // one untimed launch even with warmup = 0: it loads the code
  auto wait = [L](cu::Event& last) { checked_sync(L, [&] { last.synchronize(); }); };
  push_timing(L, lab::time_launches(k, t.config, rt.context, warmup, reps, wait));  // +1
  return 1;
}

}  // namespace

void add_kernel_launch(lua_State* L) {
  const luaL_Reg methods[] = {{"launch", kernel_launch},
                              {"check", kernel_check},
                              {"bench", kernel_bench},
                              {"clusters", kernel_clusters},
                              {nullptr, nullptr}};
  push_launch_keys(L);                     // +keys
  luaL_setfuncs(L, methods, kLaunchKeys);  // -keys
}

void push_kernel_call(lua_State* L) {
  push_launch_keys(L);                            // +keys
  lua_pushcclosure(L, kernel_call, kLaunchKeys);  // -keys +1
}

}  // namespace warplab::bind
