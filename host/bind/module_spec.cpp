// module_spec.cpp: see module_spec.hpp. Inline sources: the text is located in the Lua
// file after the calling line, so a diagnostic on the kernel's line 3 is reported at the
// Lua file's line where that kernel line is written.
#include "bind/module_spec.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "bind/runtime.hpp"
#include "rtc/toolkit.hpp"

namespace fs = std::filesystem;

namespace warplab::bind {
namespace {

struct Caller {
  std::string file;  // the Lua file ("" when not a file)
  int line = 0;
};

Caller caller(lua_State* L) {
  lua_Debug ar;
  // Level 1 is the Lua function that called cuda.compile.
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@')
    return {ar.source + 1, ar.currentline};
  return {};
}

std::optional<fs::path> locate(const std::string& file, const Caller& c) {
  std::error_code ec;
  std::vector<fs::path> tries = {file};
  if (fs::path(file).is_relative()) {
    if (!c.file.empty()) tries.push_back(fs::path(c.file).parent_path() / file);
    tries.push_back(rtc::kernels_dir() / file);
  }
  for (const auto& p : tries)
    if (fs::is_regular_file(p, ec)) return p;
  // Something is there but it is not a file (a folder, a device): the reader says which.
  for (const auto& p : tries)
    if (fs::exists(p, ec)) return p;
  return std::nullopt;
}

// Line (1-based) of the Lua file where the inline text's first line sits, or 0.
int inline_first_line(const Caller& c, const std::string& text) {
  if (c.file.empty()) return 0;
  std::ifstream in(c.file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string lua = ss.str();
  std::size_t pos = 0;
  for (int l = 1; l < c.line && pos != std::string::npos; ++l) pos = lua.find('\n', pos) + 1;
  if (pos == std::string::npos) return 0;
  const std::string probe = text.substr(0, std::min<std::size_t>(text.size(), 200));
  if (probe.empty()) return 0;
  // At or after the call (the usual `cuda.compile{source = [[...]]}`), else anywhere in
  // the file (a source kept in a local above the call).
  std::size_t at = lua.find(probe, pos);
  if (at == std::string::npos) at = lua.find(probe);
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(lua.begin(), lua.begin() + static_cast<long>(at), '\n'));
}

std::vector<std::string> string_list(lua_State* L, int t, const char* field) {
  std::vector<std::string> out;
  const int type = lua_getfield(L, t, field);  // +1
  if (type == LUA_TSTRING)
    out.emplace_back(lua_tostring(L, -1));
  else if (type == LUA_TTABLE)
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; ++i) {  // +1
      if (!lua_isstring(L, -1))
        luaL_error(L, "cuda.compile: %s[%d] must be a string", field, static_cast<int>(i));
      out.emplace_back(lua_tostring(L, -1));
      lua_pop(L, 1);  // -1
    }
  else if (type != LUA_TNIL)
    luaL_error(L, "cuda.compile: %s must be a string or a list of strings", field);
  lua_settop(L, t);  // drop leftovers
  return out;
}

// defines = {BLOCK = 256, DEBUG = true, "A=1", "B"}: name = value pairs sorted by name
// (pairs() order changes from run to run; the option list should not), then the list.
void read_defines(lua_State* L, int t, rtc::Options& o) {
  const int type = lua_getfield(L, t, "defines");  // +1
  if (type != LUA_TTABLE) {
    if (type != LUA_TNIL)
      luaL_error(L, "cuda.compile: defines must be a table ({BLOCK = 256} or {\"BLOCK=256\"})");
    lua_settop(L, t);
    return;
  }
  std::vector<std::pair<std::string, std::string>> named, listed;
  lua_pushnil(L);                // +1 key
  while (lua_next(L, -2)) {      // +1 value
    if (lua_isinteger(L, -2)) {  // {"A=1", "B"}
      if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "cuda.compile: defines[%d] must be a string like \"NAME=value\"",
                   static_cast<int>(lua_tointeger(L, -2)));
      try {
        listed.push_back(rtc::parse_define(lua_tostring(L, -1)));
      } catch (const rtc::Error& e) {
        luaL_error(L, "cuda.compile: defines[%d]: %s", static_cast<int>(lua_tointeger(L, -2)), e.what());
      }
    } else if (lua_type(L, -2) == LUA_TSTRING) {  // {BLOCK = 256, DEBUG = true}
      const int vt = lua_type(L, -1);
      if (vt != LUA_TNUMBER && vt != LUA_TSTRING && vt != LUA_TBOOLEAN)
        luaL_error(L, "cuda.compile: defines.%s must be a number, string or boolean, got %s",
                   lua_tostring(L, -2), luaL_typename(L, -1));
      std::string v = vt == LUA_TBOOLEAN ? (lua_toboolean(L, -1) ? "1" : "0")
                                         : luaL_tolstring(L, -1, nullptr);  // +1 (not for booleans)
      if (vt != LUA_TBOOLEAN) lua_pop(L, 1);                                // -1
      try {
        rtc::check_define_name(lua_tostring(L, -2));
      } catch (const rtc::Error& e) {
        luaL_error(L, "cuda.compile: defines: %s", e.what());
      }
      named.emplace_back(lua_tostring(L, -2), v);
    } else {
      luaL_error(L, "cuda.compile: defines keys must be names, got a %s", luaL_typename(L, -2));
    }
    lua_pop(L, 1);  // -1 value
  }
  std::sort(named.begin(), named.end());
  o.defines.insert(o.defines.end(), named.begin(), named.end());
  o.defines.insert(o.defines.end(), listed.begin(), listed.end());
  lua_settop(L, t);
}

// An optional string field: "" when absent, raises for another type.
std::string opt_string(lua_State* L, int t, const char* field) {
  const int type = lua_getfield(L, t, field);  // +1
  std::string v;
  std::size_t len = 0;
  if (type == LUA_TSTRING) {
    const char* p = lua_tolstring(L, -1, &len);
    v.assign(p, len);  // every byte, NULs too
  } else if (type != LUA_TNIL)
    luaL_error(L, "cuda.compile: %s must be a string, got %s", field, luaL_typename(L, -1));
  lua_pop(L, 1);  // -1
  return v;
}

}  // namespace

std::optional<ModuleSpec> spec_from_args(lua_State* L, int idx, std::string& why) {
  const Caller c = caller(L);
  ModuleSpec spec;
  spec.options.arch = runtime(L).target.arch();
  // WARPLAB_LINEINFO=1 (set by `run --sanitize` for its child): line info everywhere.
  const char* env_lineinfo = std::getenv("WARPLAB_LINEINFO");
  spec.options.lineinfo = env_lineinfo && *env_lineinfo && std::string(env_lineinfo) != "0";
  std::string file, inline_text;
  if (lua_type(L, idx) == LUA_TSTRING) {
    file = lua_tostring(L, idx);
  } else {
    luaL_checktype(L, idx, LUA_TTABLE);
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
        luaL_error(
            L, "cuda.compile: max_registers must be an integer >= 0 (0: no limit) and at most 255, got %s",
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
    for (auto& o : string_list(L, idx, "options")) {
      if (o == "-lineinfo" || o == "--generate-line-info")
        spec.options.lineinfo = true;
      else
        spec.options.extra.push_back(o);
    }
    spec.options.name_expressions = string_list(L, idx, "kernels");
  }
  if (!file.empty()) {
    auto p = locate(file, c);
    if (!p) {
      why = "cannot open kernel file '" + file + "' (looked in the current folder" +
            (c.file.empty() ? "" : ", next to " + c.file) + " and " + rtc::kernels_dir().string() + ")";
      return std::nullopt;
    }
    spec.path = p->string();
    if (!reread_source(spec, why)) return std::nullopt;
    return spec;
  }
  spec.source.text = inline_text;
  // Unnamed, the source's diagnostics point into the Lua file that holds it; with
  // name = "x.cu", or when the text is not in the calling file (built at run time, or
  // from another file), they count lines from the source's own first line.
  if (spec.source.name.empty()) {
    const int first = inline_first_line(c, inline_text);
    spec.source.name = first > 0 ? c.file : "inline.cu";
    spec.source.line_offset = first > 0 ? first - 1 : 0;
  }
  spec.source.dir = c.file.empty() ? fs::current_path() : fs::path(c.file).parent_path();
  return spec;
}

bool reread_source(ModuleSpec& spec, std::string& why) {
  try {
    spec.source = rtc::load_source(spec.path);
    return true;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
}

}  // namespace warplab::bind
