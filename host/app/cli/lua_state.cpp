// cli/lua_state.cpp: open_lua_state: the target (target.cpp), why it is offline, and the
// options as the command line set them, handed to bind::open_state. The device is chosen
// when the script first asks for it whenever that can wait (the default device, a driver
// that loaded; lab::Run chooses on first use): a script that never touches the GPU never
// pays for cuInit.
#include "app/cli/lua_state.hpp"

#include <lua.hpp>

#include <cstdlib>
#include <cstring>

#include "cu/driver.hpp"
#include "cu/trace.hpp"
#include "lab/watch_feed.hpp"
#include "sys/shown.hpp"

namespace warplab::app {
namespace {

// select_target with its reason; `notes` decides whether the offline note is said.
lab::Target choose_target(const Globals& g, const Globals& notes) {
  const cu::TraceScope t("device chosen (cuInit, attributes or profile)");
  cu::DeviceSnapshot target = select_target(notes, /*fallback=*/true);
  lab::feed_device(target);  // for `warplab watch`'s occupancy line (a no-op otherwise)
  const bool offline = !target.live();
  std::string reason;
  // Offline, every "needs a GPU (<reason>)" says the note's few words ("libcuda.so.1 not
  // found"): the loader's whole sentence is said once, by `warplab --version`.
  if (!g.opts.profile.empty())
    reason = "working from profile '" + sys::shown(g.opts.profile) + "'";
  else if (auto why = offline_reason(g))
    reason = std::move(*why);
  else if (offline)
    reason = "the driver found none";
  return {std::move(target), offline, std::move(reason)};
}

// Under `warplab watch` (WARPLAB_DEPS_FILE set), the Lua functions that write, replace,
// rename or remove a file by name tell the watcher first (lab::feed_written), so that
// the run's own writes are not taken for saves. Each wraps the original (upvalue 1).
int call_original(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));  // +1 the original
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

void note_name(lua_State* L, int arg) {
  if (lua_type(L, arg) == LUA_TSTRING) lab::feed_written(lua_tostring(L, arg));
}

int io_open_noting(lua_State* L) {  // io.open(name [, mode]): a mode that writes
  if (lua_type(L, 2) == LUA_TSTRING && std::strpbrk(lua_tostring(L, 2), "wa+")) note_name(L, 1);
  return call_original(L);
}

int name_noting(lua_State* L) {  // io.output(name), os.remove(name)
  note_name(L, 1);
  return call_original(L);
}

int rename_noting(lua_State* L) {  // os.rename(old, new): both change
  note_name(L, 1);
  note_name(L, 2);
  return call_original(L);
}

void wrap(lua_State* L, const char* lib, const char* name, lua_CFunction f) {
  lua_getglobal(L, lib);  // +1
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, name);  // +1 the original
    lua_pushcclosure(L, f, 1);  // the wrapper, holding it
    lua_setfield(L, -2, name);  // -1
  }
  lua_pop(L, 1);  // -1
}

bind::StatePtr noting_writes_in(bind::StatePtr s) {
  const char* deps = std::getenv("WARPLAB_DEPS_FILE");
  if (!s || !deps || !*deps) return s;
  lua_State* L = s.get();
  wrap(L, "io", "open", io_open_noting);
  wrap(L, "io", "output", name_noting);
  wrap(L, "os", "rename", rename_noting);
  wrap(L, "os", "remove", name_noting);
  return s;
}

}  // namespace

bool target_can_wait(const Globals& g) {
  // A profile is read now (a bad one is exit 4 before the script runs), a device chosen by
  // number is checked now (exit 5 when it is not there), and without a driver the offline
  // note comes first, as before: none of them costs a driver start.
  // Under compute-sanitizer (run --sanitize's second process) the driver starts at once:
  // the tool refuses a run that ends before its first CUDA call, as a script that never
  // touches the GPU would.
  const char* sanitized = std::getenv("WARPLAB_SANITIZE");
  if (sanitized && *sanitized) return false;
  return g.opts.profile.empty() && g.opts.device == 0 && cu::driver_loaded();
}

lab::Run* prepare_device(lua_State* L) {
  try {
    lab::Run& run = bind::run_of(L);
    if (!run.offline()) run.gpu_context("a run made ready");  // offline() chooses: cuInit, attributes
    return &run;
  } catch (const std::exception&) {
    return nullptr;
  }
}

bind::StatePtr open_lua_state(const Globals& g, const Globals* notes) {
  const Globals n = notes ? *notes : g;
  const cu::TraceScope t("Lua state opened");
  if (target_can_wait(g))
    return noting_writes_in(bind::open_state(g.opts, [g, n] { return choose_target(g, n); }));
  lab::Target c = choose_target(g, n);
  return noting_writes_in(
      bind::open_state(g.opts, std::move(c.device), c.offline, std::move(c.offline_reason)));
}

}  // namespace warplab::app
