// array.cpp: cuda.array(type, n | table), typed device buffers: the userdata and its
// release, the fields and a[i] (1-based as everywhere in Lua; a[i] copies one element to
// the host, a[i] = v back), then the registration; the methods it shares with host arrays
// are elements.cpp's. Adapters only: the checks, copies and release are lab/array.hpp's.
// Depends on bind/elements.hpp, bind/udata.hpp, bind/record.hpp, lab/array.hpp, lab/sync.hpp.
#include <string>
#include <vector>

#include "bind/cuda.hpp"
#include "bind/elements.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/sandbox.hpp"
#include "bind/udata.hpp"
#include "lab/sync.hpp"

namespace warplab::bind {

lab::DeviceArray& check_array(lua_State* L, int idx) {
  auto* a = static_cast<lab::DeviceArray*>(luaL_checkudata(L, idx, kArrayMeta));
  if (a->freed()) raise(L, "attempt to use a freed array");
  lab::await_gpu(record_of(L).run);  // --timeout: a copy would block on a kernel that may never finish
  return *a;
}

lab::DeviceArray& push_array(lua_State* L) {
  void* mem = lua_newuserdatauv(L, sizeof(lab::DeviceArray), 1);  // +1 array (user value: a view's owner)
  auto* a = new (mem) lab::DeviceArray();
  luaL_setmetatable(L, kArrayMeta);
  return *a;
}

namespace {

// :free(), __gc and __close share this: idempotent. Freeing the owner releases the
// memory now (its views then raise on use); freeing a view only detaches it. After the
// watchdog fired a kernel still spins and cuMemFree would wait for it forever (a <close>
// array is released while the timeout error unwinds): the memory is left to the exit.
int array_release(lua_State* L) {
  lab::release(*static_cast<lab::DeviceArray*>(luaL_checkudata(L, 1, kArrayMeta)),
               record_of(L).run.timed_out);
  return 0;
}

int array_gc(lua_State* L) {
  auto* a = static_cast<lab::DeviceArray*>(luaL_checkudata(L, 1, kArrayMeta));
  array_release(L);   // a no-op for a view; the owner's memory goes (or leaks after a timeout)
  a->~DeviceArray();  // drops this handle's reference; views keep the memory alive
  lua_pushnil(L);     // destroyed: any later use is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

static int cuda_array(lua_State* L) {
  return guard(L, [L] {
    const cu::DType t = check_dtype(L, 1);
    const std::size_t n = check_count(L, 2, t, "cuda.array");
    lab::DeviceArray& a = push_array(L);  // +1 array
    a.type = t;
    a.count = n;
    lab::Run& run = record_of(L).run;
    if (run.offline) {  // host memory with the same API and checks, so a script runs up to its launch
      lab::check_offline_bytes(a.bytes(), run.target.total_memory, run.target.name);
      a.buf = std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::host_backed(a.bytes()));
    } else {
      a.buf = std::make_shared<cu::DeviceBuffer>(run.gpu_context("cuda.array"), a.bytes());
    }
    if (lua_istable(L, 2)) {
      const std::vector<unsigned char> img = table_image(L, 2, t);
      a.buf->copy_from_host(img.data(), img.size(), 0);
    }
    return 1;
  });
}

// ---- fields and elements ------------------------------------------------------------------

static int array_index(lua_State* L) {
  return guard(L, [L] {
    if (lua_type(L, 2) == LUA_TNUMBER) {
      lab::DeviceArray& a = check_array(L, 1);
      const std::size_t i = lab::index0(luaL_checkinteger(L, 2), a.count, "array");
      unsigned char v[8];
      a.buf->copy_to_host(v, a.elem(), a.byte_offset() + i * a.elem());
      push_element(L, a.type, v);  // +1
      return 1;
    }
    auto* a = static_cast<lab::DeviceArray*>(luaL_checkudata(L, 1, kArrayMeta));
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
        raise(L, "array has no field or method '%s'", key.c_str());
    }
    return 1;
  });
}

static int array_newindex(lua_State* L) {
  return guard(L, [L] {
    lab::DeviceArray& a = check_array(L, 1);
    if (lua_type(L, 2) != LUA_TNUMBER)
      raise(L, "array fields are read-only: a[i] = v takes an index 1..%d", static_cast<int>(a.count));
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
    auto* a = static_cast<lab::DeviceArray*>(luaL_checkudata(L, 1, kArrayMeta));
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
  lua_newtable(L);                          // +1 methods
  lua_pushcfunction(L, array_release);      // +1
  lua_setfield(L, -2, "free");              // -1
  add_shared_methods<lab::DeviceArray>(L);  // view/copy/zero/get/set/fill/iota/random
  lua_setfield(L, -2, "methods");           // -1
  lua_pop(L, 1);                            // -1 meta
  lua_pushcfunction(L, cuda_array);         // +1
  lua_setfield(L, -2, "array");             // -1 into cuda
}

}  // namespace warplab::bind
