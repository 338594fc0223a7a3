// kernel_launch.cpp: k:launch(grid, block, args...), k{grid=, block=, shared=, stream=,
// cooperative=, cluster=, args={...}} and k:bench{...}; k:check{...} and k:clusters{...}
// are kernel_check.cpp's.
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
#include "bind/kernel_methods.hpp"
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

static int kernel_launch(lua_State* L) {
  return guard(L, [&] {
    Runtime& rt = runtime(L);
    KernelObj& k = *check_kernel(L, 1, rt);
    cu::LaunchConfig c;
    c.grid = check_dim(L, 2, "grid");
    c.block = check_dim(L, 3, "block");
    do_launch(L, rt, k, c, 4, lua_gettop(L) - 3);
    return 0;
  });
}

// k{grid=, block=, ...}
static int kernel_call(lua_State* L) {
  return guard(L, [&] {
    Runtime& rt = runtime(L);
    KernelObj& k = *check_kernel(L, 1, rt);
    luaL_checktype(L, 2, LUA_TTABLE);
    const TableLaunch t = read_launch_table(L, 2, true);  // +fields +n
    do_launch(L, rt, k, t.config, t.first, t.n);
    return 0;
  });
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
static int kernel_bench(lua_State* L) {
  return guard(L, [&] {
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
  });
}

}  // namespace

void add_kernel_launch(lua_State* L) {
  const luaL_Reg methods[] = {{"launch", kernel_launch},
                              {"check", kernel_check},  // kernel_check.cpp
                              {"bench", kernel_bench},
                              {"clusters", kernel_clusters},  // kernel_check.cpp
                              {nullptr, nullptr}};
  push_launch_keys(L);                     // +keys
  luaL_setfuncs(L, methods, kLaunchKeys);  // -keys
}

void push_kernel_call(lua_State* L) {
  push_launch_keys(L);                            // +keys
  lua_pushcclosure(L, kernel_call, kLaunchKeys);  // -keys +1
}

}  // namespace warplab::bind
