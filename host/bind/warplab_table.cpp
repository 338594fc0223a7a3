// warplab_table.cpp: the global `warplab` table the Lua library uses when the warplab
// program runs it (docs/lua-library.md): mkdir(dir) (parents too, no shell; nil and the
// sentence on failure), write_file(path, bytes) (the one writer, replacing a result file;
// nil and the sentence on failure), now() (monotonic seconds, sub-microsecond; os.time()
// ticks whole seconds), raise(kind, message [, level]) (error() with a kind `run` ends
// by: warplab.params' -p refusals are "parameter") and show(...) (values printed as the REPL
// shows them: what a session saved by :save prints with). Adapters over
// lab/warplab_table.hpp and pretty.cpp.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "lab/warplab_table.hpp"
#include "sys/error.hpp"

namespace warplab::bind {
namespace {

static int warplab_mkdir(lua_State* L) {
  return guard(L, [L] {
    if (const auto why = lab::make_dir(arg_string(L, 1))) {
      lua_pushnil(L);                   // +1
      lua_pushstring(L, why->c_str());  // +1
      return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
  });
}

static int warplab_write_file(lua_State* L) {
  return guard(L, [L] {
    std::size_t n = 0;
    const char* path = arg_string(L, 1);
    const char* bytes = arg_string(L, 2, &n);
    if (const auto why = lab::write_result(path, std::string_view(bytes, n))) {
      lua_pushnil(L);                   // +1
      lua_pushstring(L, why->c_str());  // +1
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

// warplab.raise(kind, message [, level]): raises `message` as error(message, level) does
// (level 1, the default: the position of the function that called warplab.raise; 0: none),
// with its kind noted, so that `run` ends by the kind whatever the words (a "parameter" is
// exit 4 with the sentence alone). compile and timeout are warplab's own verdicts, not a
// script's to raise.
static int warplab_raise(lua_State* L) {
  const char* name = arg_string(L, 1);
  const std::string message = arg_string(L, 2);
  const lua_Integer level = arg_opt_integer(L, 3, 1);
  const std::optional<ErrorKind> kind = kind_named(name);
  if (!kind || *kind == ErrorKind::compile || *kind == ErrorKind::timeout) {
    std::string kinds;
    for (const KindName& k : kErrorKinds)
      if (k.kind != ErrorKind::compile && k.kind != ErrorKind::timeout)
        kinds += (kinds.empty() ? "" : ", ") + std::string(k.name);
    arg_error(L, 1, lua_pushfstring(L, "'%s' is not a kind (kinds: %s)", name, kinds.c_str()));
  }
  if (level < 0) arg_error(L, 3, "level must be >= 0");
  raise_noted(L, *kind, message, static_cast<int>(std::min<lua_Integer>(level, 1 << 20)));
}

// warplab.show(...): one line of the values as the REPL shows them (tables nested with
// sorted keys, strings inside them quoted, tab between values), written through the
// state's print; nothing at all for no values, as the REPL shows nothing for `x = 1`.
static int warplab_show(lua_State* L) {
  const int n = lua_gettop(L);
  if (n == 0) return 0;
  const std::string line = pretty_values(L, 1, n);  // may run __tostring: Lua's errors pass
  lua_getglobal(L, "print");                        // +1
  lua_pushlstring(L, line.data(), line.size());     // +1
  lua_call(L, 1, 0);                                // -2
  return 0;
}

}  // namespace

void add_warplab_table(lua_State* L) {
  const luaL_Reg fns[] = {{"mkdir", warplab_mkdir}, {"write_file", warplab_write_file},
                          {"now", warplab_now},     {"raise", warplab_raise},
                          {"show", warplab_show},   {nullptr, nullptr}};
  luaL_newlib(L, fns);          // +1
  lua_setglobal(L, "warplab");  // -1
}

}  // namespace warplab::bind
