// bind_device_attr.cpp: see device_attr.hpp. dev.attr is a plain table (so pairs() and
// completion work) whose metatable answers aliases and other spellings
// (registers_per_block, MAX_THREADS_PER_BLOCK) with the canonical entry, and rejects
// unknown names instead of answering nil, so a typo cannot pass silently. A real
// attribute the device did not report is nil. Depends on cu/attributes.hpp.
#include <string>

#include "bind/device_attr.hpp"
#include "bind/sandbox.hpp"
#include "cu/attributes.hpp"

namespace warplab::bind {
namespace {

constexpr const char* kAttrMeta = "warplab.attr";

int attr_index(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const char* name = luaL_checkstring(L, 2);
  if (const auto* info = cu::find_attribute(name)) {
    lua_pushlstring(L, info->name.data(), info->name.size());  // +1 canonical name
    lua_rawget(L, 1);                                          // -1 +1 value or nil
    return 1;
  }
  if (const std::string near = cu::suggest_attribute(name); !near.empty())
    return luaL_error(L, "unknown attribute '%s': did you mean '%s'? (see `warplab attrs %s`)", name,
                      near.c_str(), near.c_str());
  return luaL_error(L, "unknown attribute '%s' (`warplab attrs` lists them)", name);
}

}  // namespace

void push_attr_table(lua_State* L, const cu::DeviceSnapshot& d) {
  lua_createtable(L, 0, static_cast<int>(d.attributes.size()));  // +1 attr
  for (const auto& [name, value] : d.attributes) {
    lua_pushinteger(L, value);          // +1
    lua_setfield(L, -2, name.c_str());  // -1
  }
  luaL_setmetatable(L, kAttrMeta);
}

void add_attr_meta(lua_State* L) {
  luaL_newmetatable(L, kAttrMeta);   // +1
  lock_metatable(L, kAttrMeta);      // getmetatable() gives the name, never the table
  lua_pushcfunction(L, attr_index);  // +1
  lua_setfield(L, -2, "__index");    // -1
  lua_pop(L, 1);                     // -1
}

}  // namespace warplab::bind
