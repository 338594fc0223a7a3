// state.cpp: opening a Lua state for warplab (libraries, package.path, the runtime from
// runtime.cpp) and running a script file with a traceback on error. The library folders
// and the compile cache are lab's (lab/session.hpp).
#include "bind/state.hpp"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <new>

#include "bind/guard.hpp"
#include "bind/sandbox.hpp"
#include "lab/session.hpp"

namespace fs = std::filesystem;

namespace warplab::bind {
namespace {

// Message handler for lua_pcall: "file:line: msg" plus a traceback.
// The message handler of run_file: the message plus a traceback, except for a wrong -p
// value (warplab.params raises those as "FILE:LINE: params: -p ..."), which is the command
// line's fault: the message alone, marked as bad input.
int traceback(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  if (!msg) msg = luaL_tolstring(L, 1, nullptr);  // non-string error object
  if (std::strstr(msg, ": params: -p ")) {
    lua_pushstring(L, msg);
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "warplab.bad_input");
    return 1;
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

}  // namespace

StatePtr open_state(const lab::Options& opts, cu::DeviceSnapshot target, bool offline,
                    std::string offline_reason) {
  ChosenTarget t{std::move(target), offline, std::move(offline_reason)};
  return open_state(opts, [t] { return t; });
}

StatePtr open_state(const lab::Options& opts, TargetChooser choose) {
  StatePtr state(luaL_newstate());
  if (!state) throw std::bad_alloc();
  lua_State* L = state.get();
  luaL_openlibs(L);
  harden_libs(L);

  Runtime* rt = &create_runtime(L, opts, {}, true, {});
  rt->choose_target = std::move(choose);

  // package.path: the warplab library first, then Lua's defaults.
  std::string path;
  for (const auto& d : lab::lua_library_dirs(WARPLAB_SOURCE_DIR)) path += d + "/?.lua;" + d + "/?/init.lua;";
  lua_getglobal(L, "package");  // +1 package
  lua_getfield(L, -1, "path");  // +1 old path
  path += lua_tostring(L, -1);
  lua_pop(L, 1);                    // -1
  lua_pushstring(L, path.c_str());  // +1
  lua_setfield(L, -2, "path");      // -1
  lua_pop(L, 1);                    // -1 package

  lua_pushboolean(L, rt->opts.color);         // +1
  lua_setglobal(L, "warplab_tty");            // -1
  lua_pushboolean(L, isatty(STDERR_FILENO));  // +1
  lua_setglobal(L, "warplab_tty_err");        // -1
  open_cuda(L);
  return state;
}

void set_params(lua_State* L, const std::map<std::string, std::string>& params) {
  lua_createtable(L, 0, static_cast<int>(params.size()));  // +1 WARPLAB_PARAMS
  for (const auto& [k, v] : params) {
    lua_pushlstring(L, v.data(), v.size());  // +1
    lua_setfield(L, -2, k.c_str());          // -1
  }
  lua_setglobal(L, "WARPLAB_PARAMS");  // -1
}

RunResult run_file(lua_State* L, const std::string& path, const std::vector<std::string>& args) {
  RunResult out;
  // The script's folder goes first on package.path so it can require its neighbours.
  const std::string dir = fs::path(path).parent_path().string();
  lua_getglobal(L, "package");  // +1
  lua_getfield(L, -1, "path");  // +1
  const std::string old = lua_tostring(L, -1);
  lua_pop(L, 1);                                                             // -1
  lua_pushstring(L, ((dir.empty() ? "." : dir) + "/?.lua;" + old).c_str());  // +1
  lua_setfield(L, -2, "path");                                               // -1
  lua_pop(L, 1);                                                             // -1

  lua_createtable(L, static_cast<int>(args.size()), 1);  // +1 arg
  lua_pushstring(L, path.c_str());                       // +1
  lua_rawseti(L, -2, 0);                                 // -1
  for (size_t i = 0; i < args.size(); ++i) {
    lua_pushstring(L, args[i].c_str());                   // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setglobal(L, "arg");  // -1

  lua_pushcfunction(L, traceback);  // +1 handler
  const int handler = lua_gettop(L);
  if (!load_script(L, path)) {  // +1 chunk or message
    out.ok = false;
    out.error = lua_tostring(L, -1);
    lua_pop(L, 2);  // -2
    return out;
  }
  for (const auto& a : args) lua_pushstring(L, a.c_str());                  // +n varargs
  if (lua_pcall(L, static_cast<int>(args.size()), 0, handler) != LUA_OK) {  // -(n+1), +1 msg
    out.ok = false;
    out.error = lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error object is not a string)";
    // context_lost() first: a script that never chose its target has nothing timed out.
    out.timed_out = context_lost(L) && runtime(L).timed_out;
    out.bad_input = lua_getfield(L, LUA_REGISTRYINDEX, "warplab.bad_input") == LUA_TBOOLEAN;  // +1
    lua_pop(L, 1);                                                                            // -1
    lua_pop(L, 1);                                                                            // -1
  }
  lua_pop(L, 1);  // -1 handler
  return out;
}

}  // namespace warplab::bind
