// stream.cpp: streams and events (cuda.stream{priority =, non_blocking =}, s.priority,
// s:wait/synchronize/query/free; cuda.event{timing =}, e.timing, e:record/query/
// synchronize/elapsed/free), cuda.synchronize, cuda.bench (a Lua function's GPU work timed
// with device events, never host clocks) and cuda.clock. Waiting, timing, the stream book
// and what a capture refuses are lab's (lab/sync.hpp: the watchdog; lab/timing.hpp;
// lab/stream.hpp; lab/capture.hpp).
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/stream.hpp"
#include "lab/sync.hpp"
#include "lab/timing.hpp"

namespace warplab::bind {

CUstream opt_stream(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return nullptr;
  auto* s = static_cast<StreamHandle*>(luaL_testudata(L, idx, kStreamMeta));
  if (!s) raise(L, "stream must be a cuda.stream() or nil, got %s", luaL_typename(L, idx));
  if (!s->stream.valid()) raise(L, "attempt to use a destroyed stream");
  return s->stream.get();
}

StreamHandle& push_stream(lua_State* L, const cu::ContextPtr& ctx, bool non_blocking,
                          std::optional<int> prio) {
  // Made before the userdata, so a refusal leaves nothing half-made.
  cu::Stream s = prio ? cu::Stream(ctx, non_blocking, *prio) : cu::Stream(ctx, non_blocking);
  auto* h =
      new (lua_newuserdatauv(L, sizeof(StreamHandle), 0)) StreamHandle{std::move(s), 0, non_blocking};  // +1
  luaL_setmetatable(L, kStreamMeta);
  h->number = record_of(L).run.streams.add(h->stream, non_blocking);
  return *h;
}

namespace {

// ---- the stream and event userdata: the live object at idx (raises once it was freed) ---

StreamHandle& check_stream(lua_State* L, int idx) {
  auto* p = static_cast<StreamHandle*>(luaL_checkudata(L, idx, kStreamMeta));
  if (!p->stream.valid()) raise(L, "attempt to use a destroyed stream");
  return *p;
}

cu::Event& check_event(lua_State* L, int idx) {
  auto* p = static_cast<cu::Event*>(luaL_checkudata(L, idx, kEventMeta));
  if (!p->valid()) raise(L, "attempt to use a destroyed event");
  return *p;
}

// ---- streams ------------------------------------------------------------------------------

// cuda.stream([{non_blocking = true, priority = p}]). By default a stream synchronizes with
// the legacy default stream, which array copies, fills and a:get() use: work queued on it
// is finished before a:get() reads. non_blocking = true opts out (overlap experiments).
// priority: an integer in the device's range (lab::check_priority), a smaller one first.
static int cuda_stream(lua_State* L) {
  return guard(L, [&] {
    check_options(L, 1, "cuda.stream", {"non_blocking", "priority"});
    const bool non_blocking = bool_option(L, 1, "non_blocking", false, "cuda.stream");
    std::optional<double> prio;
    if (lua_istable(L, 1) && lua_getfield(L, 1, "priority") != LUA_TNIL) {  // +1
      if (lua_type(L, -1) != LUA_TNUMBER)
        raise(L, "cuda.stream: priority must be an integer, got %s", luaL_typename(L, -1));
      prio = lua_tonumber(L, -1);
    }
    lua_settop(L, 1);
    lab::Run& run = record_of(L).run;
    const cu::ContextPtr& ctx = run.gpu_context("cuda.stream");
    std::optional<int> p;
    if (prio) p = lab::check_priority(*prio, cu::stream_priorities(ctx));
    push_stream(L, ctx, non_blocking, p);  // +1
    return 1;
  });
}

// :free() and __close: refused while the stream is part of a running capture.
int stream_release(lua_State* L) {
  return guard(L, [L] {
    auto* h = static_cast<StreamHandle*>(luaL_checkudata(L, 1, kStreamMeta));
    lab::Run& run = record_of(L).run;
    run.capture.check_stream_free(h->stream.get(), "s:free()");
    run.streams.remove(h->stream);
    h->stream.destroy();
    return 0;
  });
}

// __gc: the release, but one that cannot raise.
int stream_gc(lua_State* L) {
  auto* h = static_cast<StreamHandle*>(luaL_checkudata(L, 1, kStreamMeta));
  lab::Run& run = record_of(L).run;
  run.streams.remove(h->stream);
  try {  // a stream a capture still uses is left to the process's exit, not destroyed under it
    run.capture.check_stream_free(h->stream.get(), "s:free()");
  } catch (const std::exception&) {
    new StreamHandle{std::move(*h)};  // deliberately leaked
  }
  return finalize<StreamHandle>(L, kStreamMeta);
}

static int stream_index(lua_State* L) {
  return guard(L, [L] {
    const StreamHandle& h = check_stream(L, 1);
    const std::string key = luaL_checkstring(L, 2);
    if (key == "priority")
      lua_pushinteger(L, h.stream.priority());
    else if (key == "non_blocking")
      lua_pushboolean(L, h.non_blocking);
    else
      raise(L, "stream has no field or method '%s'", key.c_str());
    return 1;
  });
}

static int stream_tostring(lua_State* L) {
  return guard(L, [L] {
    const auto* h = static_cast<StreamHandle*>(luaL_checkudata(L, 1, kStreamMeta));
    if (!h->stream.valid())
      lua_pushliteral(L, "cuda.stream (destroyed)");
    else
      lua_pushfstring(L, "cuda.stream %d (priority %d, %s)", h->number, h->stream.priority(),
                      h->non_blocking ? "non-blocking" : "blocking");
    return 1;
  });
}

static int stream_synchronize(lua_State* L) {
  return guard(L, [&] {
    lab::synchronize(record_of(L).run, check_stream(L, 1).stream, "s:synchronize()");
    return 0;
  });
}

static int stream_query(lua_State* L) {
  return guard(L, [&] {
    const StreamHandle& h = check_stream(L, 1);
    record_of(L).run.capture.refuse(lab::CaptureOp::query, "s:query()");
    lua_pushboolean(L, h.stream.query());
    return 1;
  });
}

// s:wait(e): later work on s waits for what e recorded. During a capture both handles
// stay alive with the graph (s may have joined the capture through e).
static int stream_wait(lua_State* L) {
  return guard(L, [&] {
    const StreamHandle& h = check_stream(L, 1);
    const cu::Event& e = check_event(L, 2);
    lab::Capture& cap = record_of(L).run.capture;
    cap.check_wait(h.stream.get(), e.get(), "s:wait(e)");
    h.stream.wait(e);
    if (cap.active()) {
      keep_in_capture(L, 1);
      keep_in_capture(L, 2);
    }
    lua_settop(L, 1);
    return 1;
  });
}

// ---- events -------------------------------------------------------------------------------

// cuda.event([{timing = false}]): an event without timing only orders work (cheaper to
// record and wait for); e:elapsed refuses it.
static int cuda_event(lua_State* L) {
  return guard(L, [&] {
    check_options(L, 1, "cuda.event", {"timing"});
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
  static_cast<cu::Event*>(luaL_checkudata(L, 1, kEventMeta))->destroy();
  return 0;
}

int event_gc(lua_State* L) {
  event_release(L);
  return finalize<cu::Event>(L, kEventMeta);
}

static int event_index(lua_State* L) {
  return guard(L, [L] {
    const cu::Event& e = check_event(L, 1);
    const std::string key = luaL_checkstring(L, 2);
    if (!(key == "timing")) raise(L, "event has no field or method '%s'", key.c_str());
    lua_pushboolean(L, e.timing());
    return 1;
  });
}

static int event_tostring(lua_State* L) {
  const auto* e = static_cast<cu::Event*>(luaL_checkudata(L, 1, kEventMeta));
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
    lab::Capture& cap = record_of(L).run.capture;
    cap.note_record(e.get(), s, "e:record(s)");
    e.record(s);
    if (cap.active()) keep_in_capture(L, 1);
    lua_settop(L, 1);
    return 1;
  });
}

static int event_query(lua_State* L) {
  return guard(L, [&] {
    const cu::Event& e = check_event(L, 1);
    record_of(L).run.capture.refuse(lab::CaptureOp::query, "e:query()");
    lua_pushboolean(L, e.query());
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

// ---- cuda.synchronize, cuda.bench, cuda.clock ---------------------------------------------

static int cuda_synchronize(lua_State* L) {
  return guard(L, [&] {
    lab::synchronize(record_of(L).run);
    return 0;
  });
}

// cuda.clock() -> milliseconds on the host's steady clock (works offline).
int cuda_clock(lua_State* L) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  lua_pushnumber(L, std::chrono::duration<double, std::milli>(now).count());  // +1
  return 1;
}

// cuda.bench(fn, {warmup=5, reps=100, stream=s}): calls fn warmup times, then reps
// times between two events recorded on `stream` (default stream when absent).
static int cuda_bench(lua_State* L) {
  return guard(L, [&] {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    check_options(L, 2, "cuda.bench", {"warmup", "reps", "stream"});
    const int warmup = count_field(L, 2, "warmup", 5, 0, kMaxBenchReps, "cuda.bench"),
              reps = count_field(L, 2, "reps", 100, 1, kMaxBenchReps, "cuda.bench");
    CUstream stream = nullptr;
    if (lua_istable(L, 2) && lua_getfield(L, 2, "stream") != LUA_TNIL) stream = opt_stream(L, -1);
    lab::Run& run = record_of(L).run;
    run.capture.refuse(lab::CaptureOp::bench, "cuda.bench");
    const cu::ContextPtr& ctx = run.gpu_context("cuda.bench");
    for (int i = 0; i < warmup; ++i) {
      lua_pushvalue(L, 1);  // +1
      lua_call(L, 0, 0);    // -1
    }
    lab::EventTimes times(ctx, stream, reps);
    for (int i = 0; i < reps; ++i) {
      times.start(i);
      lua_pushvalue(L, 1);  // +1
      lua_call(L, 0, 0);    // -1
      times.stop(i);
    }
    push_timing(L, times.ms(run));  // +1
    return 1;
  });
}

}  // namespace

// The one statistics path: the samples go through warplab.stats.summary (median, min, max,
// mean, sample stdev, n), the functions scripts use on their own samples, so cuda.bench,
// k:bench and a script's stats.median never disagree. Taken from package.loaded, or
// required once; an error there is a Lua error like any other.
void push_timing(lua_State* L, std::vector<double> ms) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);  // +1 package.loaded
  if (lua_getfield(L, -1, "warplab.stats") != LUA_TTABLE) {  // +1
    lua_pop(L, 1);                                           // -1
    lua_getglobal(L, "require");                             // +1
    lua_pushliteral(L, "warplab.stats");                     // +1
    lua_call(L, 1, 1);                                       // -2 +1 stats
  }
  if (!lua_istable(L, -1) || lua_getfield(L, -1, "summary") != LUA_TFUNCTION)  // +1 summary
    raise(L, "timing needs warplab.stats.summary, but package.loaded[\"warplab.stats\"] was replaced");
  lua_createtable(L, static_cast<int>(ms.size()), 0);  // +1 samples
  for (std::size_t i = 0; i < ms.size(); ++i) {
    lua_pushnumber(L, ms[i]);                             // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_pushvalue(L, -1);            // +1 samples again
  lua_replace(L, -5);              // -1: loaded, stats, summary, samples -> samples, stats, summary, samples
  lua_call(L, 1, 1);               // -2 +1: samples, stats, result
  lua_replace(L, -2);              // samples, result
  lua_insert(L, -2);               // result, samples
  lua_setfield(L, -2, "samples");  // -1: result
}

void add_stream(lua_State* L) {
  static constexpr const char* stream_fields[] = {"priority", "non_blocking", nullptr};
  const luaL_Reg stream_meta[] = {{"__index", stream_index},
                                  {"__tostring", stream_tostring},
                                  {"__gc", stream_gc},
                                  {"__close", stream_release},
                                  {nullptr, nullptr}};
  const luaL_Reg stream_methods[] = {{"wait", stream_wait},
                                     {"synchronize", stream_synchronize},
                                     {"query", stream_query},
                                     {"free", stream_release},
                                     {nullptr, nullptr}};
  register_type(
      L, {.name = kStreamMeta, .meta = stream_meta, .methods = stream_methods, .fields = stream_fields});
  static constexpr const char* event_fields[] = {"timing", nullptr};
  const luaL_Reg event_meta[] = {{"__index", event_index},
                                 {"__tostring", event_tostring},
                                 {"__gc", event_gc},
                                 {"__close", event_release},
                                 {nullptr, nullptr}};
  const luaL_Reg event_methods[] = {
      {"record", event_record},   {"query", event_query},  {"synchronize", event_synchronize},
      {"elapsed", event_elapsed}, {"free", event_release}, {nullptr, nullptr}};
  register_type(L,
                {.name = kEventMeta, .meta = event_meta, .methods = event_methods, .fields = event_fields});
  const luaL_Reg fns[] = {{"stream", cuda_stream}, {"event", cuda_event}, {"synchronize", cuda_synchronize},
                          {"bench", cuda_bench},   {"clock", cuda_clock}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
