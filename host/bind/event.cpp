// event.cpp: events (cuda.event{timing =}, e.timing, e:record/query/synchronize/elapsed/
// free): the userdata and its release, the field, the methods, then the registration.
// Waiting and what a capture refuses are lab's (lab/sync.hpp: the watchdog;
// lab/stream.hpp); the event itself cu's (cu/stream.hpp).
#include <string>
#include <utility>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/stream.hpp"
#include "lab/sync.hpp"

namespace warplab::bind {

cu::Event& check_event(lua_State* L, int idx) {
  auto* p = static_cast<cu::Event*>(arg_udata(L, idx, kEventMeta));
  if (!p->valid()) raise(L, "attempt to use a destroyed event");
  return *p;
}

namespace {

// cuda.event([{timing = false}]): an event without timing only orders work (cheaper to
// record and wait for); e:elapsed refuses it.
static int cuda_event(lua_State* L) {
  return guard(L, [&] {
    check_option_keys(L, 1, "cuda.event", {"timing"});
    const bool timing = bool_option(L, 1, "timing", true, "cuda.event");
    const cu::ContextPtr& ctx = record_of(L).run.gpu_context("cuda.event");
    cu::Event e(ctx, timing);
    new (lua_newuserdatauv(L, sizeof(cu::Event), 0)) cu::Event(std::move(e));  // +1
    luaL_setmetatable(L, kEventMeta);
    return 1;
  });
}

// :free(), __close and __gc share it: idempotent.
int event_release(lua_State* L) {
  static_cast<cu::Event*>(arg_udata(L, 1, kEventMeta))->destroy();
  return 0;
}

int event_gc(lua_State* L) {
  event_release(L);
  return finalize<cu::Event>(L, kEventMeta);
}

static int event_index(lua_State* L) {
  return guard(L, [L] {
    const cu::Event& e = check_event(L, 1);
    const std::string key = arg_string(L, 2);
    if (!(key == "timing")) raise(L, "event has no field or method '%s'", key.c_str());
    lua_pushboolean(L, e.timing());
    return 1;
  });
}

static int event_tostring(lua_State* L) {
  const auto* e = static_cast<cu::Event*>(arg_udata(L, 1, kEventMeta));
  lua_pushstring(L, !e->valid()   ? "cuda.event (destroyed)"
                    : e->timing() ? "cuda.event (timing)"
                                  : "cuda.event (no timing)");
  return 1;
}

// e:record([s]): on the stream (default: the legacy default stream). During a capture it
// must be a stream in the capture, and e is remembered as recorded inside it.
static int event_record(lua_State* L) {
  return guard(L, [&] {
    cu::Event& e = check_event(L, 1);
    const CUstream s = opt_stream(L, 2);
    lab::Run& run = record_of(L).run;
    lab::record_event(run, e, s);  // what a capture allows: lab/stream.hpp
    if (run.capture.active()) keep_in_capture(L, 1);
    lua_settop(L, 1);
    return 1;
  });
}

static int event_query(lua_State* L) {
  return guard(L, [&] {
    const cu::Event& e = check_event(L, 1);
    lua_pushboolean(L, lab::query(record_of(L).run, e, "e:query()"));  // refused during a capture
    return 1;
  });
}

static int event_synchronize(lua_State* L) {
  return guard(L, [&] {
    lab::synchronize(record_of(L).run, check_event(L, 1), "e:synchronize()");
    return 0;
  });
}

// e:elapsed(later) -> milliseconds between two recorded events.
static int event_elapsed(lua_State* L) {
  return guard(L, [&] {
    auto& a = check_event(L, 1);
    auto& b = check_event(L, 2);
    lab::synchronize(record_of(L).run, b, "e:elapsed(later)");
    lua_pushnumber(L, cu::elapsed_ms(a, b));
    return 1;
  });
}

}  // namespace

void add_event(lua_State* L) {
  static constexpr const char* fields[] = {"timing", nullptr};
  const luaL_Reg meta[] = {{"__index", event_index},
                           {"__tostring", event_tostring},
                           {"__gc", event_gc},
                           {"__close", event_release},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {
      {"record", event_record},   {"query", event_query},  {"synchronize", event_synchronize},
      {"elapsed", event_elapsed}, {"free", event_release}, {nullptr, nullptr}};
  register_type(L, {.name = kEventMeta, .meta = meta, .methods = methods, .fields = fields, .var = "e"});
  const luaL_Reg fns[] = {{"event", cuda_event}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
