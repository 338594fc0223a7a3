// bind_host_array.cpp: cuda.host_array(type, n | list [, {pinned = false}]): typed host
// memory that device arrays copy to and from. Pinned (the default) is page-locked with
// cuMemHostAlloc, so copies run at the DMA engine's speed and need a GPU; pageable
// (pinned = false) is plain aligned_alloc memory, which works offline too. Both start
// zeroed. Elements, views and release behave as cuda.array's (bind_array.cpp).
// Depends on bind/host_array.hpp, bind/array.hpp, bind/array_host.hpp, cu/host_buffer.hpp.
#include <cstring>
#include <string>

#include "bind/array.hpp"
#include "bind/array_host.hpp"
#include "bind/guard.hpp"
#include "bind/host_array.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"

namespace warplab::bind {

HostArray* test_host_array(lua_State* L, int idx) {
  return static_cast<HostArray*>(luaL_testudata(L, idx, kHostArrayMeta));
}

HostArray& check_host_array(lua_State* L, int idx) {
  auto* h = static_cast<HostArray*>(luaL_checkudata(L, idx, kHostArrayMeta));
  if (!h->buf || !h->buf->valid()) luaL_error(L, "attempt to use a freed host array");
  return *h;
}

namespace {

HostArray& push_host_array(lua_State* L) {
  void* mem = lua_newuserdatauv(L, sizeof(HostArray), 0);  // +1 host array
  auto* h = new (mem) HostArray();
  luaL_setmetatable(L, kHostArrayMeta);
  return *h;
}

std::size_t check_index(lua_State* L, const HostArray& h, int idx) {
  const lua_Integer i = luaL_checkinteger(L, idx);
  if (i < 1 || static_cast<std::size_t>(i) > h.count)
    luaL_error(L, "index %I out of range: the host array has %I elements (valid: 1..%I)", i,
               static_cast<lua_Integer>(h.count), static_cast<lua_Integer>(h.count));
  return static_cast<std::size_t>(i - 1);
}

// The options table at idx: {pinned = true|false}; anything else is misuse.
bool check_pinned_option(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return true;
  luaL_checktype(L, idx, LUA_TTABLE);
  bool pinned = true;
  lua_pushnil(L);             // +1 key
  while (lua_next(L, idx)) {  // +1 value
    if (lua_type(L, -2) != LUA_TSTRING || std::strcmp(lua_tostring(L, -2), "pinned") != 0)
      luaL_error(L, "cuda.host_array: unknown option '%s' (options: pinned)", luaL_tolstring(L, -2, nullptr));
    if (!lua_isboolean(L, -1))
      luaL_error(L, "cuda.host_array: pinned must be true or false, got %s", luaL_typename(L, -1));
    pinned = lua_toboolean(L, -1);
    lua_pop(L, 1);  // -1 value
  }
  return pinned;
}

WL_LUA_FN(cuda_host_array) {
  const cu::DType t = check_dtype(L, 1);
  const std::size_t n = check_count(L, 2, t, "cuda.host_array");
  const bool pinned = check_pinned_option(L, 3);
  const std::size_t bytes = n * static_cast<std::size_t>(cu::dtype_info(t).size);
  // Allocated before the userdata exists, so a refusal leaves nothing half-made.
  auto buf = std::make_shared<cu::HostBuffer>(
      pinned ? cu::HostBuffer::pinned(gpu_context(L, "a pinned cuda.host_array"), bytes)
             : cu::HostBuffer::pageable(bytes));
  HostArray& h = push_host_array(L);  // +1 host array
  h.type = t;
  h.count = n;
  h.buf = std::move(buf);
  if (lua_istable(L, 2)) {
    const std::vector<unsigned char> img = table_image(L, 2, t);
    std::memcpy(h.data(), img.data(), img.size());
  }
  return 1;
}

WL_LUA_FN(host_index) {
  if (lua_type(L, 2) == LUA_TNUMBER) {
    const HostArray& h = check_host_array(L, 1);
    push_element(L, h.type, h.data() + check_index(L, h, 2) * h.elem());  // +1
    return 1;
  }
  auto* h = static_cast<HostArray*>(luaL_checkudata(L, 1, kHostArrayMeta));
  const std::string key = luaL_checkstring(L, 2);
  if (key == "type")
    lua_pushstring(L, cu::dtype_info(h->type).name.data());
  else if (key == "bytes")
    lua_pushinteger(L, static_cast<lua_Integer>(h->bytes()));
  else if (key == "freed")
    lua_pushboolean(L, !h->buf || !h->buf->valid());
  else if (key == "pinned")
    lua_pushboolean(L, check_host_array(L, 1).buf->is_pinned());
  else {
    luaL_getmetatable(L, kHostArrayMeta);              // +1 meta
    lua_getfield(L, -1, "methods");                    // +1 methods
    if (lua_getfield(L, -1, key.c_str()) == LUA_TNIL)  // +1 method or nil
      return luaL_error(L, "host array has no field or method '%s'", key.c_str());
  }
  return 1;
}

WL_LUA_FN(host_newindex) {
  HostArray& h = check_host_array(L, 1);
  if (lua_type(L, 2) != LUA_TNUMBER)
    return luaL_error(L, "host array fields are read-only: h[i] = v takes an index 1..%d",
                      static_cast<int>(h.count));
  const std::size_t i = check_index(L, h, 2);
  to_element(L, 3, h.type, h.data() + i * h.elem(), "value");
  return 0;
}

WL_LUA_FN(host_len) {
  lua_pushinteger(L, static_cast<lua_Integer>(check_host_array(L, 1).count));
  return 1;
}

WL_LUA_FN(host_tostring) {
  auto* h = static_cast<HostArray*>(luaL_checkudata(L, 1, kHostArrayMeta));
  if (!h->buf || !h->buf->valid())
    lua_pushstring(L, "cuda.host_array (freed)");
  else
    lua_pushfstring(L, "cuda.host_array(%s, %d, %s)%s", cu::dtype_info(h->type).name.data(),
                    static_cast<int>(h->count), h->buf->is_pinned() ? "pinned" : "pageable",
                    h->view ? " view" : "");
  return 1;
}

// :free(), __close share this (idempotent): freeing the owner releases the memory now
// (its views then raise on use); freeing a view only detaches it.
int host_release(lua_State* L) {
  auto* h = static_cast<HostArray*>(luaL_checkudata(L, 1, kHostArrayMeta));
  if (runtime(L).timed_out && h->buf) {                      // cuMemFreeHost could wait for a spinning kernel
    new std::shared_ptr<cu::HostBuffer>(std::move(h->buf));  // deliberately leaked
    return 0;
  }
  if (h->buf && !h->view) h->buf->free();
  h->buf.reset();
  return 0;
}

int host_gc(lua_State* L) {
  host_release(L);
  static_cast<HostArray*>(luaL_checkudata(L, 1, kHostArrayMeta))->~HostArray();
  lua_pushnil(L);  // destroyed: any later use is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

WL_LUA_FN(host_view) {
  const HostArray& h = check_host_array(L, 1);
  const auto count = static_cast<lua_Integer>(h.count);
  const lua_Integer first = luaL_checkinteger(L, 2);
  const bool first_ok = first >= 1 && first <= count;  // else count - first + 1 may overflow
  const lua_Integer n = luaL_optinteger(L, 3, first_ok ? count - first + 1 : 0);
  if (!first_ok || n < 1 || n > count - (first - 1))
    return luaL_error(L, "view(%I, %I) does not fit in a host array of %I elements", first, n, count);
  HostArray& v = push_host_array(L);  // +1 view
  v = HostArray{h.buf, h.type, h.first + static_cast<std::size_t>(first - 1), static_cast<std::size_t>(n),
                true};
  return 1;
}

// h:copy(src): device to host (cuMemcpyDtoH) when src is a cuda.array, host to host
// (memmove: views of one buffer may overlap) when it is a host array.
WL_LUA_FN(host_copy) {
  HostArray& dst = check_host_array(L, 1);
  if (test_host_array(L, 2)) {
    const HostArray& src = check_host_array(L, 2);
    check_same_shape(L, dst.type, dst.count, src.type, src.count);
    std::memmove(dst.data(), src.data(), dst.bytes());
  } else {
    const Array& src = check_array(L, 2);
    check_same_shape(L, dst.type, dst.count, src.type, src.count);
    src.buf->copy_to_host(dst.data(), dst.bytes(), src.byte_offset());
  }
  lua_settop(L, 1);
  return 1;
}

WL_LUA_FN(host_zero) {
  const HostArray& h = check_host_array(L, 1);
  std::memset(h.data(), 0, h.bytes());
  lua_settop(L, 1);
  return 1;
}

}  // namespace

void add_host_array(lua_State* L) {
  luaL_newmetatable(L, kHostArrayMeta);  // +1 meta
  lock_metatable(L, kHostArrayMeta);     // getmetatable() gives the name, never the table
  set_fields(L, {"type", "bytes", "pinned", "freed"});
  const luaL_Reg meta[] = {{"__index", host_index}, {"__newindex", host_newindex},
                           {"__len", host_len},     {"__tostring", host_tostring},
                           {"__gc", host_gc},       {"__close", host_release},
                           {nullptr, nullptr}};
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);  // +1 methods
  const luaL_Reg methods[] = {{"free", host_release},
                              {"view", host_view},
                              {"copy", host_copy},
                              {"zero", host_zero},
                              {nullptr, nullptr}};
  luaL_setfuncs(L, methods, 0);
  add_array_host_methods(L);              // get/set/fill/iota/random
  lua_setfield(L, -2, "methods");         // -1
  lua_pop(L, 1);                          // -1 meta
  lua_pushcfunction(L, cuda_host_array);  // +1
  lua_setfield(L, -2, "host_array");      // -1 into cuda
}

}  // namespace warplab::bind
