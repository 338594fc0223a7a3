// json.cpp: JSON text -> Lua values for warplab.json.decode (parsing and its sentences
// are lab/json.hpp's): objects become tables with string keys, arrays 1-based lists,
// null the sentinel json.null (a light userdata: nil cannot sit in a table), integers
// Lua integers, other numbers floats.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "lab/json.hpp"

namespace warplab::bind {
namespace {

int null_sentinel;  // its address is json.null

void push_json(lua_State* L, const nlohmann::json& j, int depth) {
  luaL_checkstack(L, 4, "json.decode");
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      lua_pushlightuserdata(L, &null_sentinel);
      break;
    case nlohmann::json::value_t::boolean:
      lua_pushboolean(L, j.get<bool>());
      break;
    case nlohmann::json::value_t::number_integer:
      lua_pushinteger(L, j.get<long long>());
      break;
    case nlohmann::json::value_t::number_unsigned: {
      const auto u = j.get<unsigned long long>();
      if (u > static_cast<unsigned long long>(LUA_MAXINTEGER))
        lua_pushnumber(L, static_cast<double>(u));
      else
        lua_pushinteger(L, static_cast<lua_Integer>(u));
      break;
    }
    case nlohmann::json::value_t::number_float:
      lua_pushnumber(L, j.get<double>());
      break;
    case nlohmann::json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      lua_pushlstring(L, s.data(), s.size());
      break;
    }
    case nlohmann::json::value_t::array: {
      lua_createtable(L, static_cast<int>(j.size()), 0);
      lua_Integer i = 0;
      for (const auto& v : j) {
        push_json(L, v, depth + 1);
        lua_rawseti(L, -2, ++i);
      }
      break;
    }
    case nlohmann::json::value_t::object: {
      lua_createtable(L, 0, static_cast<int>(j.size()));
      for (const auto& [k, v] : j.items()) {
        lua_pushlstring(L, k.data(), k.size());
        push_json(L, v, depth + 1);
        lua_rawset(L, -3);
      }
      break;
    }
    default:
      lua_pushnil(L);  // binary / discarded: not produced by parse()
  }
}

static int json_decode(lua_State* L) {
  return guard(L, [L] {
    std::size_t n = 0;
    const char* text = arg_string(L, 1, &n);
    push_json(L, lab::decode_json(std::string_view(text, n)), 0);  // +1
    return 1;
  });
}

int open_json_c(lua_State* L) {
  lua_createtable(L, 0, 2);
  lua_pushcfunction(L, json_decode);
  lua_setfield(L, -2, "decode");
  lua_pushlightuserdata(L, &null_sentinel);
  lua_setfield(L, -2, "null");
  return 1;
}

}  // namespace

void add_json(lua_State* L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);  // +1 package.preload
  lua_pushcfunction(L, open_json_c);
  lua_setfield(L, -2, "warplab.json_c");
  lua_pop(L, 1);
}

}  // namespace warplab::bind
