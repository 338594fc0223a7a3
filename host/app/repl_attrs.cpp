// repl_attrs.cpp: `:attrs [pattern]` (see repl_attrs.hpp). dev.attr is a plain Lua
// table, so the listing walks it with lua_next; units come from cu::find_attribute.
#include "app/repl_attrs.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "cu/attributes.hpp"

namespace warplab::app::repl {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// 49152 -> "48 KiB": only for exact multiples, so the hint never rounds.
std::string byte_hint(long long v) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  std::string out;
  for (int i = 0; i < 4 && v >= 1024 && v % 1024 == 0; ++i) {
    v /= 1024;
    out = std::to_string(v) + " " + units[i];
  }
  return out;
}

// Pushes dev.attr; false (nothing pushed) when `dev` is not a device with attributes.
int get_attr_table(lua_State* L) {
  lua_getglobal(L, "dev");                                   // +1
  lua_getfield(L, -1, "attr");                               // +1 (runs the device __index)
  return 1;
}

}  // namespace

bool attr_matches(const std::string& pattern, const std::string& name) {
  if (pattern.empty()) return true;
  const std::string p = lower(pattern), n = lower(name);
  if (p.find_first_of("*?[") != std::string::npos) return fnmatch(p.c_str(), n.c_str(), 0) == 0;
  return n.find(p) != std::string::npos;
}

AttrListing list_attrs(lua_State* L, const std::string& pattern) {
  const int top = lua_gettop(L);
  lua_pushcfunction(L, get_attr_table);                      // +1
  if (lua_pcall(L, 0, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TTABLE) {
    lua_settop(L, top);
    return {false, "`dev` is not a device (it is bound to cuda.device() at start; :reload restores it)"};
  }
  std::map<std::string, std::string> rows;  // sorted by name
  lua_pushnil(L);                                            // +1 first key
  while (lua_next(L, -2) != 0) {                             // +1 value
    if (lua_type(L, -2) == LUA_TSTRING && attr_matches(pattern, lua_tostring(L, -2))) {
      const std::string name = lua_tostring(L, -2);
      std::string value = luaL_tolstring(L, -1, nullptr);    // +1
      lua_pop(L, 1);                                         // -1
      if (const cu::AttributeInfo* info = cu::find_attribute(name); info && !info->unit.empty()) {
        if (info->unit == "bool") value = value == "0" ? "no" : "yes";
        else value += " " + std::string(info->unit);
        if (info->unit == "bytes" && lua_isinteger(L, -1)) {
          const std::string hint = byte_hint(lua_tointeger(L, -1));
          if (!hint.empty()) value += " (" + hint + ")";
        }
      }
      rows[name] = value;
    }
    lua_pop(L, 1);                                           // -1 value
  }
  lua_settop(L, top);
  if (rows.empty())
    return {false, "no attribute matches '" + pattern + "' (a glob like max_*, or part of a name)"};
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  std::string out;
  for (const auto& [name, value] : rows)
    out += (out.empty() ? "" : "\n") + name + std::string(width - name.size() + 2, ' ') + value;
  return {true, out};
}

}  // namespace warplab::app::repl
