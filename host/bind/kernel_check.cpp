// kernel_check.cpp: k:check{...} (would this launch pass its checks? works offline) and
// k:clusters{...} (how many such clusters fit at once, on a GPU). Off the launch path; the
// rules are lab's (lab/launch.hpp), the launch table is read as a launch reads it.
#include <string>

#include "bind/guard.hpp"
#include "bind/kernel_methods.hpp"
#include "bind/launch_table.hpp"
#include "bind/module.hpp"
#include "bind/runtime.hpp"
#include "cu/launch.hpp"

namespace warplab::bind {
namespace {

// The arguments' checks of a launch, alone: (kernel, args...) -> nothing, or an error.
static int check_args(lua_State* L) {
  return guard(L, [&] {
    marshal(L, runtime(L), *check_kernel(L, 1), 2, lua_gettop(L) - 1);
    return 0;
  });
}

}  // namespace

// k:check{grid=, block=, shared=, cooperative=, cluster=, args=} -> true | false, why
// (works offline; on a GPU a cluster is also asked of the driver). With args, they get
// the launch's checks too: count, types, integer ranges.
int kernel_check(lua_State* L) {
  return guard(L, [&] {
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
  });
}

// k:clusters{grid=, block=, cluster=, shared=} -> how many such clusters can be resident
// at once (cuOccupancyMaxActiveClusters), or nil and why: a broken rule, or no GPU.
int kernel_clusters(lua_State* L) {
  return guard(L, [&] {
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
  });
}

}  // namespace warplab::bind
