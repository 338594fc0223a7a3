// sandbox.cpp: see sandbox.hpp. Checking and reading a script file is lab's; here only
// loading its text.
#include "bind/sandbox.hpp"

#include <lua.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "lab/script.hpp"

namespace warplab::bind {

namespace {

// load(chunk [, name [, mode [, env]]]) with mode "t" forced; an explicit "b" is refused.
// The original function is upvalue 1; the argument count is kept (an explicit nil env
// means something different from no env).
int text_only(lua_State* L, int mode_arg) {
  const int n = lua_gettop(L);
  if (n >= mode_arg && !lua_isnil(L, mode_arg)) {
    const char* mode = luaL_checkstring(L, mode_arg);
    if (std::strcmp(mode, "t") != 0)
      return luaL_error(L, "binary chunks are refused: mode must be \"t\" (got \"%s\")", mode);
  }
  lua_settop(L, std::max(n, mode_arg));
  lua_pushstring(L, "t");
  lua_replace(L, mode_arg);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}
int load_t(lua_State* L) { return text_only(L, 3); }
int loadfile_t(lua_State* L) { return text_only(L, 2); }

int dofile_t(lua_State* L) {
  const char* name = luaL_optstring(L, 1, nullptr);
  lua_settop(L, 1);
  if (luaL_loadfilex(L, name, "t") != LUA_OK) return lua_error(L);
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - 1;
}

// package.searchers[2], text only: finds NAME on package.path like Lua's own searcher.
int search_lua_text(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchpath");
  lua_pushstring(L, name);
  lua_getfield(L, -3, "path");
  lua_call(L, 2, 2);
  if (lua_isnil(L, -2)) return 1;  // the message listing where it looked
  const std::string file = lua_tostring(L, -2);
  if (luaL_loadfilex(L, file.c_str(), "t") != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file.c_str(),
                      lua_tostring(L, -1));
  lua_pushstring(L, file.c_str());
  return 2;
}

void wrap_global(lua_State* L, const char* name, lua_CFunction f) {
  lua_getglobal(L, name);
  lua_pushcclosure(L, f, 1);
  lua_setglobal(L, name);
}

}  // namespace

void harden_libs(lua_State* L) {
  wrap_global(L, "load", load_t);
  wrap_global(L, "loadfile", loadfile_t);
  lua_register(L, "dofile", dofile_t);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  lua_pushcfunction(L, search_lua_text);
  lua_rawseti(L, -2, 2);
  lua_pop(L, 1);
  // The reduced debug library, also as require "debug". WARPLAB_UNSAFE_DEBUG=1 keeps the
  // whole library, for warplab's own introspection tests (tests/lua/api_docs.lua).
  if (const char* v = std::getenv("WARPLAB_UNSAFE_DEBUG"); v && std::strcmp(v, "1") == 0) return;
  lua_getglobal(L, "debug");
  lua_newtable(L);
  for (const char* keep : {"traceback", "getinfo", "getlocal", "sethook", "gethook"}) {
    lua_getfield(L, -2, keep);
    lua_setfield(L, -2, keep);
  }
  lua_pushvalue(L, -1);
  lua_setglobal(L, "debug");
  lua_getfield(L, -3, "loaded");
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "debug");
  lua_pop(L, 4);
}

void lock_metatable(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__metatable");
}

bool load_script(lua_State* L, const std::string& path) {
  std::string text;
  if (const auto why = lab::read_script(path, text)) {
    lua_pushstring(L, why->c_str());
    return false;
  }
  return luaL_loadbufferx(L, text.data(), text.size(), ("@" + path).c_str(), "t") == LUA_OK;
}

}  // namespace warplab::bind
