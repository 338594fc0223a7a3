// tensor_map.cpp: cuda.tensor_map(array, {dims =, box =, strides =, elem_strides =, swizzle =,
// l2_promotion =, oob_fill =, type =}), a TMA descriptor over a cuda.array (lab/tensor_map.hpp
// holds its rules), passed to a kernel's `const __grid_constant__ CUtensorMap` parameter.
// Offline it is made and checked the same, only not encoded (a launch needs a GPU anyway).
// The userdata and its release, the options, the fields, then the registration.
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "sys/shown.hpp"

namespace warplab::bind {

TensorMapHandle* test_tensor_map(lua_State* L, int idx) {
  return static_cast<TensorMapHandle*>(luaL_testudata(L, idx, kTensorMapMeta));
}

namespace {

constexpr const char* kWho = "cuda.tensor_map";

TensorMapHandle& check_handle(lua_State* L, int idx) {
  return *static_cast<TensorMapHandle*>(arg_udata(L, idx, kTensorMapMeta));
}

// :free() and __close (idempotent): the descriptor goes, the array it kept may be collected.
int tensor_map_release(lua_State* L) {
  check_handle(L, 1).map.reset();
  lua_pushnil(L);              // +1
  lua_setiuservalue(L, 1, 1);  // -1
  return 0;
}

int tensor_map_gc(lua_State* L) { return finalize<TensorMapHandle>(L, kTensorMapMeta); }

// ---- the options ------------------------------------------------------------------------

// The value at idx as an option's sentence quotes it: a number or string as written (a
// long string shortened), anything else by its type. No metamethod runs.
std::string value_text(lua_State* L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) return "'" + sys::shown(lua_tostring(L, idx)) + "'";
  if (lua_type(L, idx) == LUA_TNUMBER) {
    const std::string s = luaL_tolstring(L, idx, nullptr);  // +1
    lua_pop(L, 1);                                          // -1
    return s;
  }
  return luaL_typename(L, idx);
}

// opts[name] as a list of integers (nil: empty; one integer: a list of one), raising
// "cuda.tensor_map: dims[2] must be an integer, got 1.5" and the like otherwise.
std::vector<std::int64_t> int_list(lua_State* L, int opts, const char* name) {
  std::vector<std::int64_t> out;
  const int t = lua_getfield(L, opts, name);  // +1
  lua_Integer v = 0;
  if (t == LUA_TNUMBER) {
    if (!read_integer(L, -1, LUA_MININTEGER, LUA_MAXINTEGER, v))
      raise(L, "%s: %s must be an integer or a list of them, got %s", kWho, name, value_text(L, -1).c_str());
    out.push_back(v);
  } else if (t == LUA_TTABLE) {
    const auto n = lua_rawlen(L, -1);
    if (n > 5)
      raise(L, "%s: %s has %d entries: a tensor map has rank 1 to 5", kWho, name, static_cast<int>(n));
    for (lua_Integer i = 1; i <= static_cast<lua_Integer>(n); ++i) {
      lua_rawgeti(L, -1, i);  // +1
      if (!read_integer(L, -1, LUA_MININTEGER, LUA_MAXINTEGER, v))
        raise(L, "%s: %s[%d] must be an integer, got %s", kWho, name, static_cast<int>(i),
              value_text(L, -1).c_str());
      out.push_back(v);
      lua_pop(L, 1);  // -1
    }
  } else if (t != LUA_TNIL) {
    raise(L, "%s: %s must be a list of integers, got %s", kWho, name, luaL_typename(L, -1));
  }
  lua_pop(L, 1);  // -1
  return out;
}

// opts[name] as a byte count: a number, "none" (0) or "32B"-style text; lab checks which.
std::int64_t span_field(lua_State* L, int opts, const char* name) {
  std::int64_t v = 0;
  const int t = lua_getfield(L, opts, name);  // +1
  if (t == LUA_TSTRING) {
    const std::string s = lua_tostring(L, -1);
    if (s == "none")
      v = 0;
    else if (s.size() >= 2 && s.size() <= 8 && s.back() == 'B' &&
             s.find_first_not_of("0123456789") == s.size() - 1)
      v = std::stoll(s);
    else
      raise(L, "%s: %s = %s: give a byte count (0, 32, 64, 128, ...) or 'none'", kWho, name,
            value_text(L, -1).c_str());
  } else if (t != LUA_TNIL) {
    lua_Integer n = 0;
    if (!read_integer(L, -1, 0, 1 << 20, n))
      raise(L, "%s: %s must be a byte count or 'none', got %s", kWho, name, value_text(L, -1).c_str());
    v = n;
  }
  lua_pop(L, 1);  // -1
  return v;
}

// Every Lua value of the options table at idx (an __index of its metatable may run code:
// all of it runs here, before the array is looked at).
lab::TensorMapRequest read_request(lua_State* L, int idx, bool& dims_given) {
  lab::TensorMapRequest r;
  dims_given = lua_getfield(L, idx, "dims") != LUA_TNIL;  // +1
  lua_pop(L, 1);                                          // -1
  r.dims = int_list(L, idx, "dims");
  r.box = int_list(L, idx, "box");
  r.strides = int_list(L, idx, "strides");
  r.element_strides = int_list(L, idx, "elem_strides");
  r.swizzle = span_field(L, idx, "swizzle");
  r.l2_promotion = span_field(L, idx, "l2_promotion");
  if (lua_getfield(L, idx, "oob_fill") != LUA_TNIL) {  // +1
    const std::string f = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (f != "zero" && f != "nan")
      raise(L, "%s: oob_fill must be 'zero' or 'nan', got %s", kWho, value_text(L, -1).c_str());
    r.oob_nan = f == "nan";
  }
  lua_pop(L, 1);                                   // -1
  if (lua_getfield(L, idx, "type") != LUA_TNIL) {  // +1
    if (lua_type(L, -1) != LUA_TSTRING)
      raise(L, "%s: type must be an element type's name (\"u32\", \"f32\", ...), got %s", kWho,
            value_text(L, -1).c_str());
    r.type = sys::shown(lua_tostring(L, -1));
  }
  lua_pop(L, 1);  // -1
  return r;
}

int cuda_tensor_map(lua_State* L) {
  return guard(L, [L] {
    arg_udata(L, 1, kArrayMeta);  // named when Lua cannot name the call (args.hpp)
    if (!lua_istable(L, 2))
      raise(L, "%s: expected an array and a table of options {dims =, box =, ...}, got %s for the options",
            kWho, luaL_typename(L, 2));
    check_option_keys(
        L, 2, kWho,
        {"dims", "box", "strides", "elem_strides", "swizzle", "l2_promotion", "oob_fill", "type"});
    bool dims_given = false;
    lab::TensorMapRequest r = read_request(L, 2, dims_given);
    if (r.box.empty())
      raise(L, "%s: box = is required (how many elements one copy moves, per dimension)", kWho);
    const auto& a = *static_cast<lab::DeviceArray*>(arg_udata(L, 1, kArrayMeta));
    if (!dims_given && !a.freed()) r.dims.push_back(static_cast<std::int64_t>(a.count));  // 1-D: all of it
    lab::Run& run = record_of(L).run;
    const bool live = !run.offline();
    if (live && !a.freed()) run.gpu_context(kWho);  // the encode wants the context current
    auto* h = new (lua_newuserdatauv(L, sizeof(TensorMapHandle), 1)) TensorMapHandle();  // +1 empty handle
    luaL_setmetatable(L, kTensorMapMeta);
    lua_pushvalue(L, 1);          // +1 the array
    lua_setiuservalue(L, -2, 1);  // -1 kept: the collector never frees memory the map describes
    h->map = lab::make_tensor_map(a, r, live);
    return 1;
  });
}

// ---- fields -------------------------------------------------------------------------------

void push_list(lua_State* L, const auto& v, unsigned n) {
  lua_createtable(L, static_cast<int>(n), 0);  // +1
  for (unsigned i = 0; i < n; ++i) {
    lua_pushinteger(L, static_cast<lua_Integer>(v[i]));  // +1
    lua_rawseti(L, -2, i + 1);                           // -1
  }
}

// The fields (register_type's __index, after the methods). The map is held for the call:
// a list's table is allocated while the list is read from it, and the allocation may run
// a finalizer (a script's __gc) that frees the map (t:free()).
int tensor_map_index(lua_State* L) {
  return guard(L, [L] {
    const std::shared_ptr<const lab::TensorMap> held = check_handle(L, 1).map;
    if (lua_type(L, 2) != LUA_TSTRING)
      raise(L, "a tensor map's fields have names (map.dims, map.box, ...), got %s", luaL_typename(L, 2));
    const std::string key = lua_tostring(L, 2);
    if (key == "freed") return lua_pushboolean(L, !held || held->freed()), 1;
    auto map = [&]() -> const lab::TensorMap& {  // a field of a released map is refused
      if (!held) raise(L, "attempt to use a freed tensor map");
      return *held;
    };
    if (key == "dims") return push_list(L, map().spec.dims, map().spec.rank), 1;
    if (key == "box") return push_list(L, map().spec.box, map().spec.rank), 1;
    if (key == "strides") return push_list(L, map().spec.strides, map().spec.rank - 1), 1;
    if (key == "bytes") return lua_pushinteger(L, static_cast<lua_Integer>(map().box_bytes)), 1;
    if (key == "type") return lua_pushstring(L, cu::dtype_info(map().type).name.data()), 1;
    if (key == "encoded") return lua_pushboolean(L, map().encoded), 1;
    if (key == "swizzle") {
      static const int kSpan[] = {0, 32, 64, 128};
      const CUtensorMapSwizzle z = map().spec.swizzle;
      return lua_pushinteger(L, z <= CU_TENSOR_MAP_SWIZZLE_128B ? kSpan[z] : -1), 1;
    }
    raise(L, "tensor map has no field or method '%s'", sys::shown(key).c_str());
  });
}

int tensor_map_newindex(lua_State* L) {
  return guard(L, [L]() -> int { raise(L, "a tensor map's fields are read-only: make a new map"); });
}

int tensor_map_tostring(lua_State* L) {
  return guard(L, [L] {
    const TensorMapHandle& h = check_handle(L, 1);
    if (!h.map) return lua_pushstring(L, "cuda.tensor_map (freed)"), 1;
    const std::string s =
        "cuda.tensor_map(" + lab::describe(*h.map) + (h.map->freed() ? "; its array was freed)" : ")");
    lua_pushstring(L, s.c_str());
    return 1;
  });
}

}  // namespace

void add_tensor_map(lua_State* L) {
  static constexpr const char* fields[] = {"dims",    "box",     "strides", "bytes", "type",
                                           "swizzle", "encoded", "freed",   nullptr};
  const luaL_Reg meta[] = {{"__index", tensor_map_index},       {"__newindex", tensor_map_newindex},
                           {"__tostring", tensor_map_tostring}, {"__gc", tensor_map_gc},
                           {"__close", tensor_map_release},     {nullptr, nullptr}};
  const luaL_Reg methods[] = {{"free", tensor_map_release}, {nullptr, nullptr}};
  register_type(L,
                {.name = kTensorMapMeta, .meta = meta, .methods = methods, .fields = fields, .var = "map"});
  const luaL_Reg fns[] = {{"tensor_map", cuda_tensor_map}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
