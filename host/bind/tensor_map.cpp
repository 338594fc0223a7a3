// tensor_map.cpp: cuda.tensor_map(array, {dims =, box =, strides =, elem_strides =, swizzle =,
// l2_promotion =, oob_fill =, type =}), a TMA descriptor over a cuda.array (lab/tensor_map.hpp
// holds its rules), passed to a kernel's `const __grid_constant__ CUtensorMap` parameter.
// Offline it is made and checked the same, only not encoded (a launch needs a GPU anyway).
// Fields dims, box, strides, bytes, type, swizzle, encoded, freed; :free(), <close>, __gc.
#include <new>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/sandbox.hpp"
#include "bind/udata.hpp"

namespace warplab::bind {
namespace {

constexpr const char* kWho = "cuda.tensor_map";

// opts[name] as a list of integers (nil: empty), raising "cuda.tensor_map: dims must be a
// list of integers, got ..." otherwise.
std::vector<std::int64_t> int_list(lua_State* L, int opts, const char* name) {
  std::vector<std::int64_t> out;
  const int t = lua_getfield(L, opts, name);  // +1
  if (t == LUA_TNUMBER && lua_isinteger(L, -1)) {
    out.push_back(lua_tointeger(L, -1));  // one number: a list of one
  } else if (t == LUA_TTABLE) {
    const auto n = lua_rawlen(L, -1);
    if (n > 8)
      raise(L, "%s: %s has %d entries: a tensor map has rank 1 to 5", kWho, name, static_cast<int>(n));
    for (lua_Integer i = 1; i <= static_cast<lua_Integer>(n); ++i) {
      lua_rawgeti(L, -1, i);  // +1
      lua_Integer v = 0;
      if (!read_integer(L, -1, LUA_MININTEGER, LUA_MAXINTEGER, v))
        raise(L, "%s: %s[%d] must be an integer, got %s", kWho, name, static_cast<int>(i),
              luaL_tolstring(L, -1, nullptr));
      out.push_back(v);
      lua_pop(L, 1);  // -1
    }
  } else if (t != LUA_TNIL) {
    raise(L, "%s: %s must be a list of integers, got %s", kWho, name, luaL_typename(L, -1));
  }
  lua_pop(L, 1);  // -1
  return out;
}

// opts[name] as a byte count among 0 and the given spans; also "none" and "32B"-style text.
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
      raise(L, "%s: %s = '%s': give a byte count (0, 32, 64, 128, ...) or 'none'", kWho, name, s.c_str());
  } else if (t != LUA_TNIL) {
    lua_Integer n = 0;
    if (!read_integer(L, -1, 0, 1 << 20, n))
      raise(L, "%s: %s must be a byte count or 'none', got %s", kWho, name, luaL_tolstring(L, -1, nullptr));
    v = n;
  }
  lua_pop(L, 1);  // -1
  return v;
}

TensorMapHandle& check_handle(lua_State* L, int idx) {
  return *static_cast<TensorMapHandle*>(luaL_checkudata(L, idx, kTensorMapMeta));
}

int cuda_tensor_map(lua_State* L) {
  return guard(L, [L] {
    luaL_checkudata(L, 1, kArrayMeta);
    if (!lua_istable(L, 2))
      raise(L, "%s: expected an array and a table of options {dims =, box =, ...}", kWho);
    check_options(L, 2, kWho,
                  {"dims", "box", "strides", "elem_strides", "swizzle", "l2_promotion", "oob_fill", "type"});
    // Every Lua value first (an __index could run code), then the array.
    lab::TensorMapRequest r;
    const bool dims_given = lua_getfield(L, 2, "dims") != LUA_TNIL;  // +1
    r.dims = int_list(L, 2, "dims");
    r.box = int_list(L, 2, "box");
    r.strides = int_list(L, 2, "strides");
    r.element_strides = int_list(L, 2, "elem_strides");
    r.swizzle = span_field(L, 2, "swizzle");
    r.l2_promotion = span_field(L, 2, "l2_promotion");
    if (lua_getfield(L, 2, "oob_fill") != LUA_TNIL) {  // +1
      const char* f = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
      if (std::string(f) != "zero" && std::string(f) != "nan")
        raise(L, "%s: oob_fill must be 'zero' or 'nan', got %s", kWho, luaL_tolstring(L, -1, nullptr));
      r.oob_nan = std::string(f) == "nan";
    }
    if (lua_getfield(L, 2, "type") != LUA_TNIL) r.type = luaL_tolstring(L, -1, nullptr);  // +1 (+1)
    if (r.box.empty())
      raise(L, "%s: box = is required (how many elements one copy moves, per dimension)", kWho);
    const auto& a = *static_cast<lab::DeviceArray*>(luaL_checkudata(L, 1, kArrayMeta));
    if (!dims_given && !a.freed())
      r.dims.push_back(static_cast<std::int64_t>(a.count));  // one dimension: all of it
    lab::Run& run = record_of(L).run;
    const bool live = !run.offline();
    if (live && !a.freed()) run.gpu_context(kWho);  // the encode wants the context current
    auto* h = static_cast<TensorMapHandle*>(lua_newuserdatauv(L, sizeof(TensorMapHandle), 1));  // +1 handle
    new (h) TensorMapHandle();  // empty before the map is made, so __gc is always safe
    luaL_setmetatable(L, kTensorMapMeta);
    lua_pushvalue(L, 1);          // +1 the array
    lua_setiuservalue(L, -2, 1);  // -1 kept: the collector never frees memory the map describes
    h->map = lab::make_tensor_map(a, r, live);
    return 1;
  });
}

int tensor_map_release(lua_State* L) {
  check_handle(L, 1).map.reset();
  return 0;
}

int tensor_map_gc(lua_State* L) {
  check_handle(L, 1).~TensorMapHandle();
  lua_pushnil(L);  // destroyed: any later use is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

void push_list(lua_State* L, const auto& v, unsigned n) {
  lua_createtable(L, static_cast<int>(n), 0);  // +1
  for (unsigned i = 0; i < n; ++i) {
    lua_pushinteger(L, static_cast<lua_Integer>(v[i]));  // +1
    lua_rawseti(L, -2, i + 1);                           // -1
  }
}

int tensor_map_index(lua_State* L) {
  TensorMapHandle& h = check_handle(L, 1);
  const std::string key = luaL_checkstring(L, 2);
  if (key == "freed") return lua_pushboolean(L, !h.map || h.map->freed()), 1;
  lua_pushvalue(L, 2);                                             // +1
  if (lua_gettable(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;  // -1 +1 a method
  if (!h.map) return guard(L, [L]() -> int { raise(L, "attempt to use a freed tensor map"); });
  const lab::TensorMap& m = *h.map;
  if (key == "dims") return push_list(L, m.spec.dims, m.spec.rank), 1;
  if (key == "box") return push_list(L, m.spec.box, m.spec.rank), 1;
  if (key == "strides") return push_list(L, m.spec.strides, m.spec.rank - 1), 1;
  if (key == "bytes") return lua_pushinteger(L, static_cast<lua_Integer>(m.box_bytes)), 1;
  if (key == "type") return lua_pushstring(L, cu::dtype_info(m.type).name.data()), 1;
  if (key == "encoded") return lua_pushboolean(L, m.encoded), 1;
  if (key == "swizzle") {
    static const int kSpan[] = {0, 32, 64, 128};
    return lua_pushinteger(L, m.spec.swizzle <= CU_TENSOR_MAP_SWIZZLE_128B ? kSpan[m.spec.swizzle] : -1), 1;
  }
  return 0;  // nil: as for any table
}

int tensor_map_tostring(lua_State* L) {
  const TensorMapHandle& h = check_handle(L, 1);
  if (!h.map) return lua_pushstring(L, "cuda.tensor_map (freed)"), 1;
  const std::string s =
      "cuda.tensor_map(" + lab::describe(*h.map) + (h.map->freed() ? "; its array was freed)" : ")");
  lua_pushstring(L, s.c_str());
  return 1;
}

}  // namespace

TensorMapHandle* test_tensor_map(lua_State* L, int idx) {
  return static_cast<TensorMapHandle*>(luaL_testudata(L, idx, kTensorMapMeta));
}

void add_tensor_map(lua_State* L) {
  luaL_newmetatable(L, kTensorMapMeta);  // +1 meta
  lock_metatable(L, kTensorMapMeta);     // getmetatable() gives the name, never the table
  set_fields(L, {"dims", "box", "strides", "bytes", "type", "swizzle", "encoded", "freed"});
  const luaL_Reg methods[] = {{"free", tensor_map_release}, {nullptr, nullptr}};
  lua_createtable(L, 0, 1);  // +1 methods
  luaL_setfuncs(L, methods, 0);
  lua_pushvalue(L, -1);                      // +1 methods
  lua_setfield(L, -3, "methods");            // -1 (the REPL's completion and the docs test read it)
  lua_pushcclosure(L, tensor_map_index, 1);  // -1 methods, +1 __index
  lua_setfield(L, -2, "__index");            // -1
  const luaL_Reg meta[] = {{"__gc", tensor_map_gc},
                           {"__close", tensor_map_release},
                           {"__tostring", tensor_map_tostring},
                           {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);                          // -1 meta
  lua_pushcfunction(L, cuda_tensor_map);  // +1
  lua_setfield(L, -2, "tensor_map");      // -1 into cuda
}

}  // namespace warplab::bind
