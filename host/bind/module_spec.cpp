// module_spec.cpp: see module_spec.hpp. The Lua side only: which fields are given and
// their Lua types; finding files, placing inline sources and checking defines are lab's
// (lab/module_spec.hpp), the field readers module_args.cpp's.
#include "bind/module_spec.hpp"

#include <set>

#include "bind/module_args.hpp"
#include "bind/runtime.hpp"
#include "lab/module_spec.hpp"

namespace warplab::bind {
namespace {

// Raises for a key cuda.compile does not know.
void check_fields(lua_State* L, int idx) {
  static const std::set<std::string> known = {"file",    "source",        "name",    "defines",
                                              "include", "options",       "arch",    "kernels",
                                              "std",     "max_registers", "lineinfo"};
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING || !known.count(lua_tostring(L, -2)))
      luaL_error(L,
                 "cuda.compile: unknown field '%s' (fields: file, source, name, defines, "
                 "include, options, arch, kernels, std, max_registers, lineinfo)",
                 luaL_tolstring(L, -2, nullptr));
    lua_pop(L, 1);
  }
}

// The table form: every field but file= and source=, which it returns.
void read_table(lua_State* L, int idx, ModuleSpec& spec, std::string& file, std::string& inline_text) {
  check_fields(L, idx);
  file = opt_string(L, idx, "file");
  inline_text = opt_string(L, idx, "source");
  lua_getfield(L, idx, "source");  // +1
  const bool has_source = !lua_isnil(L, -1);
  lua_pop(L, 1);  // -1
  if (has_source && inline_text.empty())
    luaL_error(L, "cuda.compile: source= is empty: no kernel to compile");
  // Given but empty is a mistake (as `compile --arch ""`), not "the default".
  for (const char* f : {"arch", "std"})
    if (lua_getfield(L, idx, f) == LUA_TSTRING && lua_rawlen(L, -1) == 0)  // +1
      luaL_error(L, "cuda.compile: %s = \"\" names nothing: leave it out for the default", f);
  lua_settop(L, idx);
  if (auto a = opt_string(L, idx, "arch"); !a.empty()) spec.options.arch = a;
  if (auto v = opt_string(L, idx, "std"); !v.empty()) spec.options.std = v;
  spec.source.name = opt_string(L, idx, "name");
  if (lua_getfield(L, idx, "max_registers") != LUA_TNIL) {  // +1
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 255)
      luaL_error(L,
                 "cuda.compile: max_registers must be an integer >= 0 (0: no limit) and at most 255, got %s",
                 luaL_tolstring(L, -1, nullptr));
    spec.options.max_registers = static_cast<int>(lua_tointeger(L, -1));
  }
  lua_getfield(L, idx, "lineinfo");  // +1
  spec.options.lineinfo = spec.options.lineinfo || lua_toboolean(L, -1);
  lua_settop(L, idx);
  if (file.empty() == inline_text.empty())
    luaL_error(L, "cuda.compile: give exactly one of file= or source=");
  read_defines(L, idx, spec.options);
  spec.options.include_dirs = string_list(L, idx, "include");
  lab::add_options(spec.options, string_list(L, idx, "options"));
  spec.options.name_expressions = string_list(L, idx, "kernels");
}

}  // namespace

std::optional<ModuleSpec> spec_from_args(lua_State* L, int idx, std::string& why) {
  const Caller c = caller(L);
  ModuleSpec spec;
  spec.options.arch = runtime(L).target.arch();
  spec.options.lineinfo = lab::env_lineinfo();
  std::string file, inline_text;
  if (lua_type(L, idx) == LUA_TSTRING) {
    file = lua_tostring(L, idx);
  } else {
    luaL_checktype(L, idx, LUA_TTABLE);
    read_table(L, idx, spec, file, inline_text);
  }
  if (!file.empty()) {
    if (!lab::spec_from_file(spec, file, c.file, why)) return std::nullopt;
    return spec;
  }
  lab::set_inline_source(spec, inline_text, c.file, c.line);
  return spec;
}

}  // namespace warplab::bind
