// array.cpp: cuda.array(type, n | table [, {managed = true}]), typed device buffers: the
// userdata and its release, the fields and a[i] (1-based as everywhere in Lua; a[i] copies
// one element to the host, a[i] = v back; a managed array is read and written in place
// once the device is idle), a:prefetch and a:advise (managed arrays), then the
// registration; the methods it shares with host arrays are elements.cpp's. Adapters only:
// the checks, allocation, copies and release are lab/array.hpp's, lab/array_fill.hpp's and
// lab/managed.hpp's, what a capture refuses or defers too.
#include <cstring>
#include <string>
#include <vector>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/elements.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/array_fill.hpp"
#include "lab/managed.hpp"
#include "lab/sync.hpp"

namespace warplab::bind {

lab::DeviceArray& check_array(lua_State* L, int idx) {
  auto* a = static_cast<lab::DeviceArray*>(arg_udata(L, idx, kArrayMeta));
  if (a->freed()) [[unlikely]]
    raise(L, a->buf ? "attempt to use a freed array: the array this view shows was freed"
                    : "attempt to use a freed array");
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
// During a capture the memory goes once the graph is made (lab::Capture::release).
int array_release(lua_State* L) {
  lab::Run& run = record_of(L).run;
  run.capture.release(*static_cast<lab::DeviceArray*>(arg_udata(L, 1, kArrayMeta)), run.timed_out);
  return 0;
}

// __gc: the release (a no-op for a view; the owner's memory goes, or leaks after a
// timeout), then the handle's reference dropped (views keep the memory alive).
int array_gc(lua_State* L) {
  record_of(L).array_memo.forget(lua_touserdata(L, 1));  // the launch path's memo (record.hpp)
  array_release(L);
  return finalize<lab::DeviceArray>(L, kArrayMeta);
}

static int cuda_array(lua_State* L) {
  return guard(L, [L] {
    const cu::DType t = check_dtype(L, 1);
    const std::size_t n = check_count(L, 2, t, "cuda.array");
    check_option_keys(L, 3, "cuda.array", {"managed"});
    const bool managed = bool_option(L, 3, "managed", false, "cuda.array");
    const std::size_t bytes = n * static_cast<std::size_t>(cu::dtype_info(t).size);
    std::shared_ptr<cu::DeviceBuffer> buf = lab::allocate_device(record_of(L).run, bytes, managed);
    lab::DeviceArray& a = push_array(L);  // +1 array
    a.type = t;
    a.count = n;
    a.buf = std::move(buf);
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
      const std::size_t i = lab::index0(arg_integer(L, 2), a.count, "array");
      unsigned char v[8];
      if (const unsigned char* p = lab::managed_element(record_of(L).run, a, i, "a[i]"))
        std::memcpy(v, p, a.elem());
      else
        a.buf->copy_to_host(v, a.elem(), a.byte_offset() + i * a.elem());
      push_element(L, a.type, v);  // +1
      return 1;
    }
    auto* a = static_cast<lab::DeviceArray*>(arg_udata(L, 1, kArrayMeta));
    const std::string key = arg_string(L, 2);
    if (key == "type")
      lua_pushstring(L, cu::dtype_info(a->type).name.data());
    else if (key == "bytes")
      lua_pushinteger(L, static_cast<lua_Integer>(a->bytes()));
    else if (key == "freed")
      lua_pushboolean(L, a->freed());
    else if (key == "managed")
      lua_pushboolean(L, a->buf && a->buf->is_managed());
    else if (key == "ptr")
      lua_pushinteger(L, static_cast<lua_Integer>(check_array(L, 1).ptr()));
    else
      raise(L, "array has no field or method '%s'", key.c_str());
    return 1;
  });
}

static int array_newindex(lua_State* L) {
  return guard(L, [L] {
    lab::DeviceArray& a = check_array(L, 1);
    if (lua_type(L, 2) != LUA_TNUMBER)
      raise(L, "array fields are read-only: a[i] = v takes an index 1..%I",
            static_cast<lua_Integer>(a.count));
    const std::size_t i = lab::index0(arg_integer(L, 2), a.count, "array");
    unsigned char v[8];
    to_element(L, 3, a.type, v, "value");
    if (unsigned char* p = lab::managed_element(record_of(L).run, a, i, "a[i] = v"))
      std::memcpy(p, v, a.elem());
    else
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
    auto* a = static_cast<lab::DeviceArray*>(arg_udata(L, 1, kArrayMeta));
    if (a->freed())
      lua_pushstring(L, "cuda.array (freed)");
    else
      lua_pushfstring(L, "cuda.array(%s, %I)%s%s", cu::dtype_info(a->type).name.data(),
                      static_cast<lua_Integer>(a->count), a->buf->is_managed() ? " managed" : "",
                      a->view ? " view" : "");
    return 1;
  });
}

// ---- managed arrays: prefetch, advise -------------------------------------------------------

// Where at idx: "host" or a device index (the run's device when `dflt` and absent).
lab::Location location_arg(lua_State* L, int idx, const char* who, bool dflt) {
  lab::Run& run = record_of(L).run;
  if (lua_type(L, idx) == LUA_TSTRING) return lab::location_named(lua_tostring(L, idx), who);
  if (lua_type(L, idx) == LUA_TNUMBER)
    return lab::location_index(lua_tonumber(L, idx), run.offline() ? 1 : cu::device_count(), who);
  if (dflt && lua_isnoneornil(L, idx)) return {false, run.offline() ? 0 : run.target().ordinal};
  raise(L, "%s: where must be a device index or \"host\", got %s", who, luaL_typename(L, idx));
}

// a:prefetch(where [, {stream = s}]): migrates a managed array's pages in stream order.
// The options table is read first: its __index may run Lua code (which may free the
// array or the stream); the array and the stream are taken after it.
static int array_prefetch(lua_State* L) {
  return guard(L, [L] {
    check_option_keys(L, 3, "a:prefetch", {"stream"});
    const int stream_at = lua_istable(L, 3) ? (lua_getfield(L, 3, "stream"), lua_gettop(L)) : 0;  // +1
    lab::DeviceArray& a = check_array(L, 1);
    const lab::Location to = location_arg(L, 2, "a:prefetch", false);
    const CUstream s = stream_at ? opt_stream(L, stream_at) : nullptr;
    lab::Run& run = record_of(L).run;
    lab::prefetch(run.capture, a, to, s, run.target());
    lua_settop(L, 1);
    return 1;
  });
}

// a:advise(name [, where]): read_mostly, preferred_location, accessed_by, unset_ forms.
static int array_advise(lua_State* L) {
  return guard(L, [L] {
    lab::DeviceArray& a = check_array(L, 1);
    if (lua_type(L, 2) != LUA_TSTRING)
      raise(
          L,
          "a:advise: the advice must be a name (read_mostly, preferred_location, accessed_by, or one of them "
          "with unset_ before it), got %s",
          luaL_typename(L, 2));
    const lab::Advice adv = lab::parse_advice(lua_tostring(L, 2));
    const lab::Location where = location_arg(L, 3, "a:advise", true);
    lab::advise(record_of(L).run.capture, a, adv, where);
    lua_settop(L, 1);
    return 1;
  });
}

}  // namespace

void add_array(lua_State* L) {
  static constexpr const char* fields[] = {"type", "bytes", "ptr", "freed", "managed", nullptr};
  const luaL_Reg meta[] = {{"__index", array_index}, {"__newindex", array_newindex},
                           {"__len", array_len},     {"__tostring", array_tostring},
                           {"__gc", array_gc},       {"__close", array_release},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {
      {"free", array_release}, {"prefetch", array_prefetch}, {"advise", array_advise}, {nullptr, nullptr}};
  register_type(L, {.name = kArrayMeta,
                    .meta = meta,
                    .methods = methods,
                    .shared = shared_methods<lab::DeviceArray>(),  // view/copy/zero/get/set/fill/iota/random
                    .fields = fields,
                    .var = "a"});
  const luaL_Reg fns[] = {{"array", cuda_array}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
