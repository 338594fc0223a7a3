// bind_array.cpp: cuda.array(type, n | table): typed device buffers. Indices are
// 1-based as everywhere in Lua; a[i] and :get() copy to the host, :set() copies back;
// a:copy(b) takes a device array or a cuda.host_array (bind_host_array.cpp).
// Depends on bind/array.hpp, bind/host_array.hpp, cu/memory.hpp, cu/dtype.hpp.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bind/array.hpp"
#include "bind/array_host.hpp"
#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"
#include "cu/attributes.hpp"

namespace warplab::bind {

Array* test_array(lua_State* L, int idx) { return static_cast<Array*>(luaL_testudata(L, idx, kArrayMeta)); }

Array& check_array(lua_State* L, int idx) {
  auto* a = static_cast<Array*>(luaL_checkudata(L, idx, kArrayMeta));
  if (!a->buf || !a->buf->valid()) luaL_error(L, "attempt to use a freed array");
  await_gpu(L);  // --timeout: a copy would block on a kernel that may never finish
  return *a;
}

cu::DType check_dtype(lua_State* L, int idx) {
  std::size_t len = 0;
  const char* name = luaL_checklstring(L, idx, &len);
  if (auto t = cu::parse_dtype(std::string_view(name, len))) return *t;  // "f32\0x" is not f32
  luaL_argerror(L, idx,
                lua_pushfstring(L, "unknown element type '%s' (one of %s)", name, cu::dtype_names().c_str()));
  return cu::DType::F32;
}

void check_same_shape(lua_State* L, cu::DType dt, std::size_t dn, cu::DType st, std::size_t sn) {
  if (st != dt || sn != dn)
    luaL_error(L, "copy needs the same type and length: %s[%I] <- %s[%I]", cu::dtype_info(dt).name.data(),
               static_cast<lua_Integer>(dn), cu::dtype_info(st).name.data(), static_cast<lua_Integer>(sn));
}

std::size_t check_count(lua_State* L, int idx, cu::DType t, const char* who) {
  const lua_Integer n =
      lua_istable(L, idx) ? static_cast<lua_Integer>(lua_rawlen(L, idx)) : luaL_checkinteger(L, idx);
  luaL_argcheck(L, n > 0, idx, "the element count must be positive");
  if (static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 56) / cu::dtype_info(t).size)  // bytes overflow
    luaL_error(L, "%s: %I elements of %s are more than any %s holds", who, n, cu::dtype_info(t).name.data(),
               std::strcmp(who, "cuda.array") == 0 ? "device" : "machine");
  return static_cast<std::size_t>(n);
}

namespace {

Array& push_array(lua_State* L) {
  void* mem = lua_newuserdatauv(L, sizeof(Array), 0);  // +1 array
  auto* a = new (mem) Array();
  luaL_setmetatable(L, kArrayMeta);
  return *a;
}

// 1-based index argument checked against the array's length.
std::size_t check_index(lua_State* L, const Array& a, int idx) {
  const lua_Integer i = luaL_checkinteger(L, idx);
  if (i < 1 || static_cast<std::size_t>(i) > a.count)
    luaL_error(L, "index %I out of range: the array has %I elements (valid: 1..%I)", i,
               static_cast<lua_Integer>(a.count), static_cast<lua_Integer>(a.count));
  return static_cast<std::size_t>(i - 1);
}

WL_LUA_FN(cuda_array) {
  const cu::DType t = check_dtype(L, 1);
  const std::size_t n = check_count(L, 2, t, "cuda.array");
  Array& a = push_array(L);  // +1 array
  a.type = t;
  a.count = n;
  // Offline: host memory with the same API and checks, so a script runs up to its launch.
  if (runtime(L).offline) {
    // Offline the array lives in host memory: no larger than the profile's device, nor
    // than half of this machine's memory (calloc would promise pages it cannot give).
    const std::uint64_t dev_bytes = runtime(L).target.total_memory;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    const std::uint64_t host_half =
        pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 2 : 0;
    if ((dev_bytes && a.bytes() > dev_bytes) || (host_half && a.bytes() > host_half))
      return luaL_error(L, "cuda.array: %s requested, more than %s (offline, arrays live in host memory)",
                        cu::format_bytes(a.bytes()).c_str(),
                        dev_bytes && a.bytes() > dev_bytes
                            ? ("the " + cu::format_bytes(dev_bytes) + " of " + runtime(L).target.name).c_str()
                            : ("half of this machine's " + cu::format_bytes(host_half * 2)).c_str());
    a.buf = std::make_shared<cu::DeviceBuffer>(cu::DeviceBuffer::host_backed(a.bytes()));
  } else {
    a.buf = std::make_shared<cu::DeviceBuffer>(gpu_context(L, "cuda.array"), a.bytes());
  }
  if (lua_istable(L, 2)) upload_table(L, 2, a, 0);
  return 1;
}

WL_LUA_FN(array_index) {
  if (lua_type(L, 2) == LUA_TNUMBER) {
    Array& a = check_array(L, 1);
    const std::size_t i = check_index(L, a, 2);
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
    lua_pushboolean(L, !a->buf || !a->buf->valid());
  else if (key == "ptr")
    lua_pushinteger(L, static_cast<lua_Integer>(check_array(L, 1).ptr()));
  else {
    luaL_getmetatable(L, kArrayMeta);                  // +1 meta
    lua_getfield(L, -1, "methods");                    // +1 methods
    if (lua_getfield(L, -1, key.c_str()) == LUA_TNIL)  // +1 method or nil
      return luaL_error(L, "array has no field or method '%s'", key.c_str());
  }
  return 1;
}

WL_LUA_FN(array_newindex) {
  Array& a = check_array(L, 1);
  if (lua_type(L, 2) != LUA_TNUMBER)
    return luaL_error(L, "array fields are read-only: a[i] = v takes an index 1..%d",
                      static_cast<int>(a.count));
  const std::size_t i = check_index(L, a, 2);
  unsigned char v[8];
  to_element(L, 3, a.type, v, "value");
  a.buf->copy_from_host(v, a.elem(), a.byte_offset() + i * a.elem());
  return 0;
}

WL_LUA_FN(array_len) {
  lua_pushinteger(L, static_cast<lua_Integer>(check_array(L, 1).count));
  return 1;
}

WL_LUA_FN(array_tostring) {
  auto* a = static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta));
  if (!a->buf || !a->buf->valid())
    lua_pushstring(L, "cuda.array (freed)");
  else
    lua_pushfstring(L, "cuda.array(%s, %d)%s", cu::dtype_info(a->type).name.data(),
                    static_cast<int>(a->count), a->view ? " view" : "");
  return 1;
}

// :free(), __gc and __close share this: idempotent. Freeing the owner releases the
// memory now (its views then raise on use); freeing a view only detaches it.
int array_release(lua_State* L) {
  auto* a = static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta));
  if (runtime(L).timed_out && a->buf) {
    // The watchdog fired: a kernel still spins, and cuMemFree would wait for it forever
    // (a <close> array is released while the timeout error unwinds). Leave the memory to
    // the process exit, which ends the context.
    new std::shared_ptr<cu::DeviceBuffer>(std::move(a->buf));  // deliberately leaked
    return 0;
  }
  if (a->buf && !a->view) a->buf->free();
  a->buf.reset();
  return 0;
}

int array_gc(lua_State* L) {
  auto* a = static_cast<Array*>(luaL_checkudata(L, 1, kArrayMeta));
  array_release(L);  // a no-op for a view; the owner's memory goes (or leaks after a timeout)
  a->~Array();       // drops this handle's reference; views keep the memory alive
  lua_pushnil(L);    // destroyed: any later use is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

WL_LUA_FN(array_view) {
  Array& a = check_array(L, 1);
  const lua_Integer first = luaL_checkinteger(L, 2);
  const auto count = static_cast<lua_Integer>(a.count);
  const bool first_ok = first >= 1 && first <= count;  // else count - first + 1 may overflow
  const lua_Integer n = luaL_optinteger(L, 3, first_ok ? count - first + 1 : 0);
  if (!first_ok || n < 1 || n > count - (first - 1))
    return luaL_error(L, "view(%I, %I) does not fit in an array of %I elements", first, n, count);
  Array& v = push_array(L);  // +1 view
  v = Array{a.buf, a.type, a.first + static_cast<std::size_t>(first - 1), static_cast<std::size_t>(n), true};
  return 1;
}

// a:copy(b): device to device, or host to device when b is a cuda.host_array
// (cuMemcpyHtoD: straight from pinned memory, through the driver's staging when pageable).
WL_LUA_FN(array_copy) {
  Array& dst = check_array(L, 1);
  if (test_host_array(L, 2)) {
    const HostArray& src = check_host_array(L, 2);
    check_same_shape(L, dst.type, dst.count, src.type, src.count);
    dst.buf->copy_from_host(src.data(), dst.bytes(), dst.byte_offset());
  } else {
    Array& src = check_array(L, 2);
    check_same_shape(L, dst.type, dst.count, src.type, src.count);
    dst.buf->copy_from(*src.buf, dst.bytes(), dst.byte_offset(), src.byte_offset());
  }
  lua_settop(L, 1);
  return 1;
}

WL_LUA_FN(array_zero) {
  Array& a = check_array(L, 1);
  a.buf->memset(0, a.bytes(), a.byte_offset());
  lua_settop(L, 1);
  return 1;
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
  lua_newtable(L);  // +1 methods
  const luaL_Reg methods[] = {{"free", array_release},
                              {"view", array_view},
                              {"copy", array_copy},
                              {"zero", array_zero},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
  add_array_host_methods(L);         // get/set/fill/iota/random
  lua_setfield(L, -2, "methods");    // -1
  lua_pop(L, 1);                     // -1 meta
  lua_pushcfunction(L, cuda_array);  // +1
  lua_setfield(L, -2, "array");      // -1 into cuda
}

}  // namespace warplab::bind
