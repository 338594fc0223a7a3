// runtime.cpp: see runtime.hpp. The registry owns the runtime (its __gc destroys it); the
// thread's extra space holds a plain pointer to it, so the launch path finds it without
// a table lookup. Coroutines start with a copy of the main thread's extra space, so they
// see it too.
#include "bind/runtime.hpp"

#include <new>

#include "bind/state.hpp"
#include "lab/session.hpp"

namespace warplab::bind {
namespace {

constexpr const char* kRuntimeKey = "warplab.runtime";

int runtime_gc(lua_State* L) {
  *static_cast<Runtime**>(lua_getextraspace(L)) = nullptr;  // no dangling pointer at close
  static_cast<Runtime*>(lua_touserdata(L, 1))->~Runtime();
  return 0;
}

}  // namespace

Runtime& create_runtime(lua_State* L, const lab::Options& opts, cu::DeviceSnapshot target, bool offline,
                        std::string offline_reason) {
  void* mem = lua_newuserdatauv(L, sizeof(Runtime), 0);  // +1 runtime
  auto* rt = new (mem) Runtime();
  rt->opts = opts;
  rt->opts.color = lab::stdout_color(opts);
  rt->target = std::move(target);
  rt->offline = offline;
  rt->offline_reason = std::move(offline_reason);
  rt->cache = lab::open_cache(opts);
  lua_createtable(L, 0, 1);                         // +1 metatable
  lua_pushcfunction(L, runtime_gc);                 // +1
  lua_setfield(L, -2, "__gc");                      // -1
  lua_setmetatable(L, -2);                          // -1
  lua_setfield(L, LUA_REGISTRYINDEX, kRuntimeKey);  // -1
  *static_cast<Runtime**>(lua_getextraspace(L)) = rt;
  return *rt;
}

// The chooser is kept until it succeeds: one that throws (a driver failure) throws again
// on the next use rather than leave an empty target behind.
static void choose(Runtime& rt) {
  ChosenTarget t = rt.choose_target();
  rt.choose_target = nullptr;
  rt.target = std::move(t.device);
  rt.offline = t.offline;
  rt.offline_reason = std::move(t.offline_reason);
}

Runtime& runtime(lua_State* L) {
  auto* rt = *static_cast<Runtime**>(lua_getextraspace(L));
  if (!rt) luaL_error(L, "warplab runtime missing (state not opened by warplab)");
  if (rt->choose_target) [[unlikely]]
    choose(*rt);
  return *rt;
}

void require_gpu(lua_State* L, const char* what) {
  const Runtime& rt = runtime(L);
  if (rt.offline) luaL_error(L, "no CUDA device: %s needs a GPU (%s)", what, rt.offline_reason.c_str());
}

const cu::ContextPtr& gpu_context(lua_State* L, const char* what) {
  require_gpu(L, what);
  Runtime& rt = runtime(L);
  if (!rt.context) rt.context = cu::primary_context(rt.target.ordinal);
  rt.context->make_current();
  return rt.context;
}

// Asks nothing of a target not chosen yet: a state that never touched the GPU lost nothing.
bool context_lost(lua_State* L) {
  const auto* rt = *static_cast<Runtime**>(lua_getextraspace(L));
  return rt && (rt->context_lost || rt->timed_out);
}

}  // namespace warplab::bind
