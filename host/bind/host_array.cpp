// host_array.cpp: cuda.host_array(type, n | list [, {pinned = false}]), typed host memory
// that device arrays copy to and from. Pinned (the default) is page-locked with
// cuMemHostAlloc, so copies run at the DMA engine's speed and need a GPU; pageable
// (pinned = false) is plain aligned_alloc memory, which works offline too. Both start
// zeroed.
#include <cstring>
#include <string>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/elements.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"

namespace warplab::bind {

lab::HostArray* test_host_array(lua_State* L, int idx) {
  return static_cast<lab::HostArray*>(luaL_testudata(L, idx, kHostArrayMeta));
}

lab::HostArray& check_host_array(lua_State* L, int idx) {
  auto* h = static_cast<lab::HostArray*>(arg_udata(L, idx, kHostArrayMeta));
  if (h->freed()) [[unlikely]]
    raise(L, h->buf ? "attempt to use a freed host array: the host array this view shows was freed"
                    : "attempt to use a freed host array");
  return *h;
}

lab::HostArray& push_host_array(lua_State* L) {
  void* mem = lua_newuserdatauv(L, sizeof(lab::HostArray), 1);  // +1 host array (user value: a view's owner)
  auto* h = new (mem) lab::HostArray();
  luaL_setmetatable(L, kHostArrayMeta);
  return *h;
}

namespace {

// :free(), __close share this (idempotent): freeing the owner releases the memory now
// (its views then raise on use); freeing a view only detaches it. After the watchdog
// fired, cuMemFreeHost could wait for a spinning kernel: the memory is left to the exit.
// During a capture the memory goes once the graph is made (lab::Capture::release).
int host_array_release(lua_State* L) {
  lab::Run& run = record_of(L).run;
  run.capture.release(*static_cast<lab::HostArray*>(arg_udata(L, 1, kHostArrayMeta)), run.timed_out);
  return 0;
}

int host_array_gc(lua_State* L) {
  host_array_release(L);
  return finalize<lab::HostArray>(L, kHostArrayMeta);
}

// The options table at idx: {pinned = true|false}; anything else is misuse.
bool check_pinned_option(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return true;
  arg_check_type(L, idx, LUA_TTABLE);
  bool pinned = true;
  lua_pushnil(L);             // +1 key
  while (lua_next(L, idx)) {  // +1 value
    if (lua_type(L, -2) != LUA_TSTRING || std::strcmp(lua_tostring(L, -2), "pinned") != 0)
      raise(L, "cuda.host_array: unknown option '%s' (options: pinned)", luaL_tolstring(L, -2, nullptr));
    if (!lua_isboolean(L, -1))
      raise(L, "cuda.host_array: pinned must be true or false, got %s", luaL_typename(L, -1));
    pinned = lua_toboolean(L, -1);
    lua_pop(L, 1);  // -1 value
  }
  return pinned;
}

static int cuda_host_array(lua_State* L) {
  return guard(L, [L] {
    const cu::DType t = check_dtype(L, 1);
    const std::size_t n = check_count(L, 2, t, "cuda.host_array");
    const bool pinned = check_pinned_option(L, 3);
    const std::size_t bytes = n * static_cast<std::size_t>(cu::dtype_info(t).size);
    // Allocated before the userdata exists, so a refusal leaves nothing half-made.
    auto buf = lab::allocate_host(record_of(L).run, bytes, pinned);
    lab::HostArray& h = push_host_array(L);  // +1 host array
    h.type = t;
    h.count = n;
    h.buf = std::move(buf);
    if (lua_istable(L, 2)) {
      const std::vector<unsigned char> img = table_image(L, 2, t);
      std::memcpy(h.data(), img.data(), img.size());
    }
    return 1;
  });
}

// ---- fields and elements ------------------------------------------------------------------

static int host_array_index(lua_State* L) {
  return guard(L, [L] {
    if (lua_type(L, 2) == LUA_TNUMBER) {
      const lab::HostArray& h = check_host_array(L, 1);
      push_element(L, h.type, h.data() + lab::index0(arg_integer(L, 2), h.count, "host array") * h.elem());
      return 1;
    }
    auto* h = static_cast<lab::HostArray*>(arg_udata(L, 1, kHostArrayMeta));
    const std::string key = arg_string(L, 2);
    if (key == "type")
      lua_pushstring(L, cu::dtype_info(h->type).name.data());
    else if (key == "bytes")
      lua_pushinteger(L, static_cast<lua_Integer>(h->bytes()));
    else if (key == "freed")
      lua_pushboolean(L, h->freed());
    else if (key == "pinned")
      lua_pushboolean(L, check_host_array(L, 1).buf->is_pinned());
    else
      raise(L, "host array has no field or method '%s'", key.c_str());
    return 1;
  });
}

static int host_array_newindex(lua_State* L) {
  return guard(L, [L] {
    lab::HostArray& h = check_host_array(L, 1);
    if (lua_type(L, 2) != LUA_TNUMBER)
      raise(L, "host array fields are read-only: h[i] = v takes an index 1..%I",
            static_cast<lua_Integer>(h.count));
    const std::size_t i = lab::index0(arg_integer(L, 2), h.count, "host array");
    to_element(L, 3, h.type, h.data() + i * h.elem(), "value");
    return 0;
  });
}

static int host_array_len(lua_State* L) {
  return guard(L, [L] {
    lua_pushinteger(L, static_cast<lua_Integer>(check_host_array(L, 1).count));
    return 1;
  });
}

static int host_array_tostring(lua_State* L) {
  return guard(L, [L] {
    auto* h = static_cast<lab::HostArray*>(arg_udata(L, 1, kHostArrayMeta));
    if (h->freed())
      lua_pushstring(L, "cuda.host_array (freed)");
    else
      lua_pushfstring(L, "cuda.host_array(%s, %I, %s)%s", cu::dtype_info(h->type).name.data(),
                      static_cast<lua_Integer>(h->count), h->buf->is_pinned() ? "pinned" : "pageable",
                      h->view ? " view" : "");
    return 1;
  });
}

}  // namespace

void add_host_array(lua_State* L) {
  static constexpr const char* fields[] = {"type", "bytes", "pinned", "freed", nullptr};
  const luaL_Reg meta[] = {{"__index", host_array_index},
                           {"__newindex", host_array_newindex},
                           {"__len", host_array_len},
                           {"__tostring", host_array_tostring},
                           {"__gc", host_array_gc},
                           {"__close", host_array_release},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {{"free", host_array_release}, {nullptr, nullptr}};
  register_type(L, {.name = kHostArrayMeta,
                    .meta = meta,
                    .methods = methods,
                    .shared = shared_methods<lab::HostArray>(),  // view/copy/zero/get/set/fill/iota/random
                    .fields = fields,
                    .var = "h"});
  const luaL_Reg fns[] = {{"host_array", cuda_host_array}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
