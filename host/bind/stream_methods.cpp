// stream_methods.cpp: the stream and event userdata: s:synchronize(), s:query(), s:free();
// cuda.event() and ev:record([stream]), ev:synchronize(), ev:elapsed(later), ev:free();
// their metatables. cuda.stream() itself is bind_stream.cpp's. Depends on cu/stream.hpp
// and bind/fault.hpp (asynchronous errors name their launch).
#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"
#include "bind/stream.hpp"

namespace warplab::bind {
namespace {

// Helpers of the stream and event userdata: the live object at idx (raises once it
// was freed), :free(), __gc.
template <class T>
T& check_live(lua_State* L, int idx, const char* meta, const char* what) {
  auto* p = static_cast<T*>(luaL_checkudata(L, idx, meta));
  if (!p->valid()) luaL_error(L, "attempt to use a destroyed %s", what);
  return *p;
}

template <class T>
int release(lua_State* L, const char* meta) {
  static_cast<T*>(luaL_checkudata(L, 1, meta))->destroy();
  return 0;
}
template <class T>
int collect(lua_State* L, const char* meta) {
  static_cast<T*>(luaL_checkudata(L, 1, meta))->~T();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}
// Registers the locked metatable `name`: methods as __index, gc as __gc, release as __close.
void add_meta(lua_State* L, const char* name, const luaL_Reg* methods, lua_CFunction gc,
              lua_CFunction release) {
  luaL_newmetatable(L, name);  // +1
  lock_metatable(L, name);     // getmetatable() gives the name, never the table
  int n = 0;
  while (methods[n].name) ++n;
  lua_createtable(L, 0, n);        // +1, as luaL_newlib makes it
  luaL_setfuncs(L, methods, 0);    // into the methods table
  lua_setfield(L, -2, "__index");  // -1
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, release);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);  // -1
}

int stream_release(lua_State* L) { return release<cu::Stream>(L, kStreamMeta); }
int stream_gc(lua_State* L) { return collect<cu::Stream>(L, kStreamMeta); }

static int stream_synchronize(lua_State* L) {
  return guard(L, [&] {
    check_live<cu::Stream>(L, 1, kStreamMeta, "stream");
    checked_sync(L, [&] { static_cast<cu::Stream*>(lua_touserdata(L, 1))->synchronize(); });
    return 0;
  });
}

static int stream_query(lua_State* L) {
  return guard(L, [&] {
    lua_pushboolean(L, check_live<cu::Stream>(L, 1, kStreamMeta, "stream").query());
    return 1;
  });
}

int event_release(lua_State* L) { return release<cu::Event>(L, kEventMeta); }
int event_gc(lua_State* L) { return collect<cu::Event>(L, kEventMeta); }

static int event_record(lua_State* L) {
  return guard(L, [&] {
    check_live<cu::Event>(L, 1, kEventMeta, "event").record(opt_stream(L, 2));
    lua_settop(L, 1);
    return 1;
  });
}

static int event_synchronize(lua_State* L) {
  return guard(L, [&] {
    auto& e = check_live<cu::Event>(L, 1, kEventMeta, "event");
    checked_sync(L, [&] { e.synchronize(); });
    return 0;
  });
}

// ev:elapsed(later) -> milliseconds between two recorded events.
static int event_elapsed(lua_State* L) {
  return guard(L, [&] {
    auto& a = check_live<cu::Event>(L, 1, kEventMeta, "event");
    auto& b = check_live<cu::Event>(L, 2, kEventMeta, "event");
    checked_sync(L, [&] { b.synchronize(); });
    lua_pushnumber(L, cu::elapsed_ms(a, b));
    return 1;
  });
}

}  // namespace

int cuda_event(lua_State* L) {
  return guard(L, [&] {
    const cu::ContextPtr& ctx = gpu_context(L, "cuda.event");
    new (lua_newuserdatauv(L, sizeof(cu::Event), 0)) cu::Event(ctx);  // +1
    luaL_setmetatable(L, kEventMeta);
    return 1;
  });
}

void add_stream_metas(lua_State* L) {
  const luaL_Reg stream_methods[] = {{"synchronize", stream_synchronize},
                                     {"query", stream_query},
                                     {"free", stream_release},
                                     {nullptr, nullptr}};
  const luaL_Reg event_methods[] = {{"record", event_record},
                                    {"synchronize", event_synchronize},
                                    {"elapsed", event_elapsed},
                                    {"free", event_release},
                                    {nullptr, nullptr}};
  add_meta(L, kStreamMeta, stream_methods, stream_gc, stream_release);
  add_meta(L, kEventMeta, event_methods, event_gc, event_release);
}

}  // namespace warplab::bind
