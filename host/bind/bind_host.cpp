// bind_host.cpp: the host hooks the Lua library uses when the warplab program runs it
// (docs/lua-library.md): the global `warplab` table with mkdir(dir) (parents too, no
// shell) and now() (monotonic seconds with sub-microsecond resolution, for progress
// estimates; os.time() ticks whole seconds).
#include <chrono>
#include <filesystem>
#include <string>

#include "bind/guard.hpp"
#include "bind/modules.hpp"

namespace warplab::bind {
namespace {

WL_LUA_FN(host_mkdir) {
  const std::string dir = luaL_checkstring(L, 1);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir)) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot create the folder '%s': %s", dir.c_str(),
                    (ec ? ec.message() : std::string("a file is in the way")).c_str());
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

WL_LUA_FN(host_now) {
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  lua_pushnumber(L, std::chrono::duration<double>(t).count());
  return 1;
}

}  // namespace

void add_host_hooks(lua_State* L) {
  const luaL_Reg fns[] = {{"mkdir", host_mkdir}, {"now", host_now}, {nullptr, nullptr}};
  luaL_newlib(L, fns);          // +1
  lua_setglobal(L, "warplab");  // -1
}

}  // namespace warplab::bind
