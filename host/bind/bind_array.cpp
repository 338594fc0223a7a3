// bind_array.cpp: cuda.array(type, n | table): typed device buffers. Indices are
// 1-based as everywhere in Lua; a[i] and :get() copy to the host, :set() copies back;
// the methods are in bind_array_methods.cpp. Adapters only: the checks, copies and
// release are lab's (lab/array.hpp).
// Depends on bind/array.hpp, bind/array_host.hpp, bind/host_array.hpp, lab/array.hpp.
#include <string>
#include <vector>

#include "bind/array.hpp"
#include "bind/array_host.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"

namespace warplab::bind {

Array& push_array(lua_State* L) {
  void* mem = lua_newuserdatauv(L, sizeof(Array), 0);  // +1 array
  auto* a = new (mem) Array();
  luaL_setmetatable(L, kArrayMeta);
  return *a;
}

namespace {

static int cuda_array(lua_State* L) {
  return guard(L, [L] {
    const cu::DType t = check_dtype(L, 1);
    const std::size_t n = check_count(L, 2, t, "cuda.array");
    Array& a = push_array(L);  // +1 array
    a.type = t;
    a.count = n;
    const Runtime& rt = runtime(L);
    if (rt.offline) {  // host memory with the same API and checks, so a script runs up to its launch
      lab::check_offline_bytes(a.bytes(), rt.target.total_memory, rt.target.name);
      a.buf = std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::host_backed(a.bytes()));
    } else {
      a.buf = std::make_shared<cu::DeviceBuffer>(gpu_context(L, "cuda.array"), a.bytes());
    }
    if (lua_istable(L, 2)) {
      const std::vector<unsigned char> img = table_image(L, 2, t);
      a.buf->copy_from_host(img.data(), img.size(), 0);
    }
    return 1;
  });
}

static int array_index(lua_State* L) {
  return guard(L, [L] {
    if (lua_type(L, 2) == LUA_TNUMBER) {
      Array& a = check_array(L, 1);
      const std::size_t i = lab::index0(luaL_checkinteger(L, 2), a.count, "array");
      unsigned char v[8];
      a.buf->copy_to_host(v, a.elem(), a.byte_offset() + i * a.elem());
      push_element(L, a.type, v);  // +1
      return 1;
    }
    auto* a = static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta));
    const std::string key = luaL_checkstring(L, 2);
    if (key == "type")
      lua_pushstring(L, cu::dtype_info(a->type).name.data());
    else if (key == "bytes")
      lua_pushinteger(L, static_cast<lua_Integer>(a->bytes()));
    else if (key == "freed")
      lua_pushboolean(L, a->freed());
    else if (key == "ptr")
      lua_pushinteger(L, static_cast<lua_Integer>(check_array(L, 1).ptr()));
    else {
      luaL_getmetatable(L, kArrayMeta);                  // +1 meta
      lua_getfield(L, -1, "methods");                    // +1 methods
      if (lua_getfield(L, -1, key.c_str()) == LUA_TNIL)  // +1 method or nil
        return luaL_error(L, "array has no field or method '%s'", key.c_str());
    }
    return 1;
  });
}

static int array_newindex(lua_State* L) {
  return guard(L, [L] {
    Array& a = check_array(L, 1);
    if (lua_type(L, 2) != LUA_TNUMBER)
      return luaL_error(L, "array fields are read-only: a[i] = v takes an index 1..%d",
                        static_cast<int>(a.count));
    const std::size_t i = lab::index0(luaL_checkinteger(L, 2), a.count, "array");
    unsigned char v[8];
    to_element(L, 3, a.type, v, "value");
    a.buf->copy_from_host(v, a.elem(), a.byte_offset() + i * a.elem());
    return 0;
  });
}

static int array_len(lua_State* L) {
  return guard(L, [L] {
    lua_pushinteger(L, static_cast<lua_Integer>(check_array(L, 1).count));
    return 1;
  });
}

static int array_tostring(lua_State* L) {
  return guard(L, [L] {
    auto* a = static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta));
    if (a->freed())
      lua_pushstring(L, "cuda.array (freed)");
    else
      lua_pushfstring(L, "cuda.array(%s, %d)%s", cu::dtype_info(a->type).name.data(),
                      static_cast<int>(a->count), a->view ? " view" : "");
    return 1;
  });
}

}  // namespace

void add_array(lua_State* L) {
  luaL_newmetatable(L, kArrayMeta);  // +1 meta
  lock_metatable(L, kArrayMeta);     // getmetatable() gives the name, never the table
  set_fields(L, {"type", "bytes", "ptr", "freed"});
  const luaL_Reg meta[] = {{"__index", array_index}, {"__newindex", array_newindex},
                           {"__len", array_len},     {"__tostring", array_tostring},
                           {"__gc", array_gc},       {"__close", array_release},
                           {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);                   // +1 methods
  add_array_methods(L);              // free/view/copy/zero/get/set/fill/iota/random
  lua_setfield(L, -2, "methods");    // -1
  lua_pop(L, 1);                     // -1 meta
  lua_pushcfunction(L, cuda_array);  // +1
  lua_setfield(L, -2, "array");      // -1 into cuda
}

}  // namespace warplab::bind
