// hooks.cpp: the global `warplab` table the Lua library uses when the warplab program runs
// it (docs/lua-library.md): mkdir(dir) (parents too, no shell; nil and the sentence on
// failure) and now() (monotonic seconds, sub-microsecond; os.time() ticks whole seconds).
// Adapters over lab/hooks.hpp. Depends on bind/cuda.hpp, bind/guard.hpp, lab/hooks.hpp.
#include <string>

#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "lab/hooks.hpp"

namespace warplab::bind {
namespace {

static int warplab_mkdir(lua_State* L) {
  return guard(L, [L] {
    const std::string why = lab::make_dir(luaL_checkstring(L, 1));
    if (!why.empty()) {
      lua_pushnil(L);
      lua_pushstring(L, why.c_str());
      return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
  });
}

static int warplab_now(lua_State* L) {
  return guard(L, [L] {
    lua_pushnumber(L, lab::now_seconds());
    return 1;
  });
}

}  // namespace

void add_hooks(lua_State* L) {
  const luaL_Reg fns[] = {{"mkdir", warplab_mkdir}, {"now", warplab_now}, {nullptr, nullptr}};
  luaL_newlib(L, fns);          // +1
  lua_setglobal(L, "warplab");  // -1
}

}  // namespace warplab::bind
