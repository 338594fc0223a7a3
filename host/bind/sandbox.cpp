// sandbox.cpp: see sandbox.hpp. Checking and reading a script file is lab's; here only
// loading its text.
#include "bind/sandbox.hpp"

#include <sys/stat.h>
#include <unistd.h>

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
// Why the file a loader is given cannot be loaded without waiting, or nullptr: Lua's
// loaders open it with fopen, which waits forever for a writer on a FIFO (a `require`, a
// dofile or a loadfile of one hung the run). A file that is not there is Lua's to say.
const char* not_loadable(const char* name) {
  struct stat st {};
  if (!name || ::stat(name, &st) != 0 || S_ISREG(st.st_mode)) return nullptr;
  return S_ISDIR(st.st_mode)    ? "a folder, not a file"
         : S_ISFIFO(st.st_mode) ? "a FIFO, not a file"
                                : "not a regular file";
}

int load_t(lua_State* L) { return text_only(L, 3); }
int loadfile_t(lua_State* L) {
  if (const char* why = not_loadable(lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : nullptr)) {
    luaL_pushfail(L);                                                   // +1
    lua_pushfstring(L, "cannot open %s: %s", lua_tostring(L, 1), why);  // +1
    return 2;
  }
  return text_only(L, 2);
}

int dofile_t(lua_State* L) {
  const char* name = luaL_optstring(L, 1, nullptr);
  if (const char* why = not_loadable(name)) return luaL_error(L, "cannot open %s: %s", name, why);
  lua_settop(L, 1);
  if (luaL_loadfilex(L, name, "t") != LUA_OK) return lua_error(L);
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L) - 1;
}

// package.searchpath(name, path) without opening the candidates (Lua's opens each to see
// that it reads, and waits forever on a FIFO): the first that is a file this process may
// read; or "" and the "no file 'X'" lines Lua's searcher gives (require joins them).
std::string search_path(const std::string& name, const std::string& path, std::string& tried) {
  std::string dotted = name;
  std::replace(dotted.begin(), dotted.end(), '.', '/');
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t semi = path.find(';', at);
    if (semi == std::string::npos) semi = path.size();
    std::string file = path.substr(at, semi - at);
    at = semi + 1;
    if (file.empty()) continue;
    for (std::size_t q; (q = file.find('?')) != std::string::npos;) file.replace(q, 1, dotted);
    if (::access(file.c_str(), R_OK) == 0) return file;
    tried += (tried.empty() ? "" : "\n\t") + std::string("no file '") + file + "'";
  }
  return {};
}

// package.searchers[2], text only: finds NAME on package.path like Lua's own searcher. The
// C++ strings live in a block of their own: a Lua error must not jump over them.
int search_lua_text(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  lua_getglobal(L, "package");  // +1
  lua_getfield(L, -1, "path");  // +1
  const char* path = lua_tostring(L, -1);
  if (!path) return luaL_error(L, "'package.path' must be a string");
  const char* why = nullptr;
  {
    std::string tried;
    const std::string found = search_path(name, path, tried);
    if (found.empty()) {
      lua_pushstring(L, tried.c_str());  // +1 the message listing where it looked
      return 1;
    }
    why = not_loadable(found.c_str());
    lua_pushstring(L, found.c_str());  // +1 the file
  }
  const char* file = lua_tostring(L, -1);
  if (why) return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, why);
  if (luaL_loadfilex(L, file, "t") != LUA_OK)  // +1 the chunk or the message
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
  lua_pushvalue(L, -2);  // +1 the file, the searcher's second value
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
