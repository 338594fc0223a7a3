// compile_args.cpp: spec_from_args (args.hpp), cuda.compile's arguments read from Lua:
// which fields are given and their Lua types, the defines, the calling script's file and
// line. Finding the file, placing an inline source and checking defines are lab's
// (lab/module_spec.hpp). Each misuse raises its "cuda.compile: ..." sentence.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "bind/args.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "lab/module_spec.hpp"
#include "sys/shown.hpp"

namespace warplab::bind {
namespace {

// The Lua function that called the running C function (cuda.compile): its file ("" when
// not a file) and line.
struct Caller {
  std::string file;
  int line = 0;
};
Caller caller(lua_State* L) {
  lua_Debug ar;
  // Level 1 is the Lua function that called cuda.compile.
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@')
    return {ar.source + 1, ar.currentline};
  return {};
}

// t.field as a string: "" when absent, raises for another type (every byte kept, NULs too).
std::string opt_string(lua_State* L, int t, const char* field) {
  const int type = lua_getfield(L, t, field);  // +1
  std::string v;
  std::size_t len = 0;
  if (type == LUA_TSTRING) {
    const char* p = lua_tolstring(L, -1, &len);
    v.assign(p, len);  // every byte, NULs too
  } else if (type != LUA_TNIL)
    raise(L, "cuda.compile: %s must be a string, got %s", field, luaL_typename(L, -1));
  lua_pop(L, 1);  // -1
  return v;
}

// The string at idx, refused when it holds a NUL byte: options, defines and include folders
// reach NVRTC as C strings, which would end there without a word.
const char* c_text(lua_State* L, int idx, const std::string& what) {
  std::size_t len = 0;
  const char* p = lua_tolstring(L, idx, &len);
  if (p && std::strlen(p) != len)
    raise(L, "cuda.compile: %s holds a NUL byte at %d (a C string would end there)", what.c_str(),
          static_cast<int>(std::strlen(p)) + 1);
  return p;
}

// t.field as a string or a list of strings (absent: empty).
std::vector<std::string> string_list(lua_State* L, int t, const char* field) {
  std::vector<std::string> out;
  const int type = lua_getfield(L, t, field);  // +1
  if (type == LUA_TSTRING)
    out.emplace_back(c_text(L, -1, field));
  else if (type == LUA_TTABLE)
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {  // +1
      if (!lua_isstring(L, -1)) raise(L, "cuda.compile: %s[%d] must be a string", field, static_cast<int>(i));
      out.emplace_back(c_text(L, -1, std::string(field) + "[" + std::to_string(i) + "]"));
      lua_pop(L, 1);  // -1
    }
  else if (type != LUA_TNIL)
    raise(L, "cuda.compile: %s must be a string or a list of strings", field);
  lua_settop(L, t);  // drop leftovers
  return out;
}

// t.defines = {BLOCK = 256, DEBUG = true, "A=1", "B"} into o.defines (lab::add_defines
// checks names and texts).
void read_defines(lua_State* L, int t, rtc::Options& o) {
  const int type = lua_getfield(L, t, "defines");  // +1
  if (type != LUA_TTABLE) {
    if (type != LUA_TNIL)
      raise(L, "cuda.compile: defines must be a table ({BLOCK = 256} or {\"BLOCK=256\"})");
    lua_settop(L, t);
    return;
  }
  std::vector<std::pair<std::string, std::string>> named, listed;
  lua_pushnil(L);                // +1 key
  while (lua_next(L, -2)) {      // +1 value
    if (lua_isinteger(L, -2)) {  // {"A=1", "B"}
      const int i = static_cast<int>(lua_tointeger(L, -2));
      if (lua_type(L, -1) != LUA_TSTRING)
        raise(L, "cuda.compile: defines[%d] must be a string like \"NAME=value\"", i);
      listed.push_back(lab::listed_define(i, c_text(L, -1, "defines[" + std::to_string(i) + "]")));
    } else if (lua_type(L, -2) == LUA_TSTRING) {  // {BLOCK = 256, DEBUG = true}
      const int vt = lua_type(L, -1);
      if (vt != LUA_TNUMBER && vt != LUA_TSTRING && vt != LUA_TBOOLEAN)
        raise(L, "cuda.compile: defines.%s must be a number, string or boolean, got %s", lua_tostring(L, -2),
              luaL_typename(L, -1));
      const std::string key = c_text(L, -2, "a defines name");
      if (vt == LUA_TSTRING) c_text(L, -1, "defines." + sys::shown(key));
      std::string v = vt == LUA_TBOOLEAN ? (lua_toboolean(L, -1) ? "1" : "0")
                                         : luaL_tolstring(L, -1, nullptr);  // +1 (not for booleans)
      if (vt != LUA_TBOOLEAN) lua_pop(L, 1);                                // -1
      named.push_back(lab::named_define(key, std::move(v)));                // Error: its sentence
    } else {
      raise(L, "cuda.compile: defines keys must be names, got a %s", luaL_typename(L, -2));
    }
    lua_pop(L, 1);  // -1 value
  }
  lab::add_defines(o, std::move(named), listed);
  lua_settop(L, t);
}

// Raises for a key cuda.compile does not know.
void check_fields(lua_State* L, int idx) {
  static const std::set<std::string> known = {"file",    "source",        "name",    "defines",
                                              "include", "options",       "arch",    "kernels",
                                              "std",     "max_registers", "lineinfo"};
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING || !known.count(lua_tostring(L, -2)))
      raise(L,
            "cuda.compile: unknown field '%s' (fields: file, source, name, defines, "
            "include, options, arch, kernels, std, max_registers, lineinfo)",
            luaL_tolstring(L, -2, nullptr));
    lua_pop(L, 1);
  }
}

// The table form: every field but file= and source=, which it returns.
void read_table(lua_State* L, int idx, lab::ModuleSpec& spec, std::string& file, std::string& inline_text) {
  check_fields(L, idx);
  file = opt_string(L, idx, "file");
  inline_text = opt_string(L, idx, "source");
  lua_getfield(L, idx, "source");  // +1
  const bool has_source = !lua_isnil(L, -1);
  lua_pop(L, 1);  // -1
  if (has_source && inline_text.empty()) raise(L, "cuda.compile: source= is empty: no kernel to compile");
  // Given but empty is a mistake (as `compile --arch ""`), not "the default".
  for (const char* f : {"arch", "std"})
    if (lua_getfield(L, idx, f) == LUA_TSTRING && lua_rawlen(L, -1) == 0)  // +1
      raise(L, "cuda.compile: %s = \"\" names nothing: leave it out for the default", f);
  lua_settop(L, idx);
  if (auto a = opt_string(L, idx, "arch"); !a.empty()) spec.options.arch = a;
  if (auto v = opt_string(L, idx, "std"); !v.empty()) spec.options.std = v;
  spec.source.name = opt_string(L, idx, "name");
  if (lua_getfield(L, idx, "max_registers") != LUA_TNIL) {  // +1
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 255)
      raise(L, "cuda.compile: max_registers must be an integer >= 0 (0: no limit) and at most 255, got %s",
            luaL_tolstring(L, -1, nullptr));
    spec.options.max_registers = static_cast<int>(lua_tointeger(L, -1));
  }
  lua_settop(L, idx);
  spec.options.lineinfo = bool_option(L, idx, "lineinfo", false, "cuda.compile") || spec.options.lineinfo;
  if (file.empty() == inline_text.empty()) raise(L, "cuda.compile: give exactly one of file= or source=");
  read_defines(L, idx, spec.options);
  spec.options.include_dirs = string_list(L, idx, "include");
  lab::add_options(spec.options, string_list(L, idx, "options"));
  spec.options.name_expressions = string_list(L, idx, "kernels");
}

}  // namespace

std::optional<std::string> spec_from_args(lua_State* L, int idx, lab::ModuleSpec& spec) {
  const Caller c = caller(L);
  spec.options.arch = record_of(L).run.target().arch();
  spec.options.lineinfo = lab::env_lineinfo();
  std::string file, inline_text;
  if (lua_type(L, idx) == LUA_TSTRING) {
    file = lua_tostring(L, idx);
  } else {
    arg_check_type(L, idx, LUA_TTABLE);
    read_table(L, idx, spec, file, inline_text);
  }
  if (!file.empty()) return lab::spec_from_file(spec, file, c.file);
  lab::set_inline_source(spec, inline_text, c.file, c.line);
  return std::nullopt;
}

}  // namespace warplab::bind
