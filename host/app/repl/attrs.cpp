// repl/attrs.cpp: the REPL's `:attrs [pattern]` (attrs.hpp). dev.attr is a plain Lua
// table, so the listing walks it with lua_next; values and meanings are written as
// `warplab attrs` writes them.
#include "app/repl/attrs.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>

#include "cu/attributes.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app::repl {
namespace {

// Pushes dev.attr; false (nothing pushed) when `dev` is not a device with attributes.
int get_attr_table(lua_State* L) {
  lua_getglobal(L, "dev");      // +1
  lua_getfield(L, -1, "attr");  // +1 (runs the device __index)
  return 1;
}

}  // namespace

bool attr_matches(const std::string& pattern, const std::string& name) {
  if (pattern.empty()) return true;
  const std::string p = sys::lower(pattern), n = sys::lower(name);
  if (p.find_first_of("*?[") != std::string::npos) return fnmatch(p.c_str(), n.c_str(), 0) == 0;
  return n.find(p) != std::string::npos;
}

AttrListing list_attrs(lua_State* L, const std::string& pattern) {
  const int top = lua_gettop(L);
  lua_pushcfunction(L, get_attr_table);  // +1
  if (lua_pcall(L, 0, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TTABLE) {
    lua_settop(L, top);
    return {false, "`dev` is not a device (it is bound to cuda.device() at start; :reload restores it)"};
  }
  std::map<std::string, std::pair<std::string, std::string>> rows;  // name -> value, meaning
  lua_pushnil(L);                                                   // +1 first key
  while (lua_next(L, -2) != 0) {                                    // +1 value
    if (lua_type(L, -2) == LUA_TSTRING && attr_matches(pattern, lua_tostring(L, -2))) {
      const std::string name = lua_tostring(L, -2);
      std::string value = luaL_tolstring(L, -1, nullptr);  // +1
      lua_pop(L, 1);                                       // -1
      std::string meaning;
      if (const cu::AttributeInfo* info = cu::find_attribute(name)) {
        // As `warplab attrs` writes it: the value with its unit, then what it means.
        if (lua_isinteger(L, -1)) value = cu::format_value(*info, lua_tointeger(L, -1));
        meaning = std::string(info->meaning);
      }
      rows[name] = {value, meaning};
    }
    lua_pop(L, 1);  // -1 value
  }
  lua_settop(L, top);
  if (rows.empty()) {
    if (const std::string near = cu::suggest_attribute(pattern); !near.empty())
      return {false, "no attribute matches '" + sys::shown(pattern) + "': did you mean '" + near + "'?"};
    return {false,
            "no attribute matches '" + sys::shown(pattern) + "' (a glob like max_*, or part of a name)"};
  }
  size_t width = 0, vwidth = 0;
  for (const auto& [name, vm] : rows) {
    width = std::max(width, name.size());
    vwidth = std::max(vwidth, vm.first.size());
  }
  std::string out;
  for (const auto& [name, vm] : rows) {
    std::string line = name + std::string(width - name.size() + 2, ' ') + vm.first;
    if (!vm.second.empty()) line += std::string(vwidth - vm.first.size() + 2, ' ') + vm.second;
    out += (out.empty() ? "" : "\n") + line;
  }
  return {true, out};
}

}  // namespace warplab::app::repl
