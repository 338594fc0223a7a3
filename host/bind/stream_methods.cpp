// stream_methods.cpp: the stream and event userdata: s:synchronize(), s:query(), s:free();
// cuda.event() and ev:record([stream]), ev:synchronize(), ev:elapsed(later), ev:free();
// their metatables. cuda.stream() itself is bind_stream.cpp's. Depends on cu/stream.hpp
// and bind/fault.hpp (asynchronous errors name their launch).
#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/runtime.hpp"
#include "bind/stream.hpp"

namespace warplab::bind {
namespace {

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
