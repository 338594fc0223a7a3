// warplab_table.cpp: the global `warplab` table the Lua library uses when the warplab
// program runs it (docs/lua-library.md): mkdir(dir) (parents too, no shell; nil and the
// sentence on failure), write_file(path, bytes) (the one writer, replacing a result file;
// nil and the sentence on failure) and now() (monotonic seconds, sub-microsecond;
// os.time() ticks whole seconds). Adapters over lab/hooks.hpp.
#include <string>
#include <string_view>

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

static int warplab_write_file(lua_State* L) {
  return guard(L, [L] {
    std::size_t n = 0;
    const char* path = luaL_checkstring(L, 1);
    const char* bytes = luaL_checklstring(L, 2, &n);
    const std::string why = lab::write_result(path, std::string_view(bytes, n));
    if (!why.empty()) {
      lua_pushnil(L);                  // +1
      lua_pushstring(L, why.c_str());  // +1
      return 2;
    }
    lua_pushboolean(L, 1);  // +1
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

void add_warplab_table(lua_State* L) {
  const luaL_Reg fns[] = {
      {"mkdir", warplab_mkdir}, {"write_file", warplab_write_file}, {"now", warplab_now}, {nullptr, nullptr}};
  luaL_newlib(L, fns);          // +1
  lua_setglobal(L, "warplab");  // -1
}

}  // namespace warplab::bind
