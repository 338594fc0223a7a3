// stream.cpp: streams and events (cuda.stream, s:synchronize/query/free; cuda.event,
// ev:record/synchronize/elapsed/free), cuda.synchronize, cuda.bench (a Lua function's GPU
// work timed with device events, never host clocks) and cuda.clock. Waiting and timing are
// lab's (lab/sync.hpp: the watchdog; lab/timing.hpp). Depends on cu/stream.hpp,
// bind/record.hpp, bind/args.hpp (counts), bind/udata.hpp.
#include <chrono>
#include <utility>
#include <vector>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/sandbox.hpp"
#include "bind/udata.hpp"
#include "lab/sync.hpp"
#include "lab/timing.hpp"

namespace warplab::bind {

CUstream opt_stream(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return nullptr;
  auto* s = static_cast<cu::Stream*>(luaL_testudata(L, idx, kStreamMeta));
  if (!s) raise(L, "stream must be a cuda.stream() or nil, got %s", luaL_typename(L, idx));
  if (!s->valid()) raise(L, "attempt to use a destroyed stream");
  return s->get();
}

namespace {

// ---- the stream and event userdata: the live object at idx (raises once it was freed),
// :free() and __close (idempotent), __gc, and the locked metatable --------------------------

template <class T>
T& check_live(lua_State* L, int idx, const char* meta, const char* what) {
  auto* p = static_cast<T*>(luaL_checkudata(L, idx, meta));
  if (!p->valid()) raise(L, "attempt to use a destroyed %s", what);
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

// ---- streams ------------------------------------------------------------------------------

// cuda.stream([{non_blocking = true}]). By default a stream synchronizes with the legacy
// default stream, which array copies, fills and a:get() use: work queued on it is
// finished before a:get() reads. non_blocking = true opts out (overlap experiments).
static int cuda_stream(lua_State* L) {
  return guard(L, [&] {
    bool non_blocking = false;
    if (lua_istable(L, 1)) {
      lua_getfield(L, 1, "non_blocking");  // +1
      non_blocking = lua_toboolean(L, -1);
      lua_pop(L, 1);  // -1
    } else if (!lua_isnoneornil(L, 1)) {
      raise(L, "cuda.stream takes nothing or {non_blocking = true}, got %s", luaL_typename(L, 1));
    }
    const cu::ContextPtr& ctx = record_of(L).run.gpu_context("cuda.stream");
    new (lua_newuserdatauv(L, sizeof(cu::Stream), 0)) cu::Stream(ctx, non_blocking);  // +1
    luaL_setmetatable(L, kStreamMeta);
    return 1;
  });
}

int stream_release(lua_State* L) { return release<cu::Stream>(L, kStreamMeta); }
int stream_gc(lua_State* L) { return collect<cu::Stream>(L, kStreamMeta); }

static int stream_synchronize(lua_State* L) {
  return guard(L, [&] {
    lab::synchronize(record_of(L).run, check_live<cu::Stream>(L, 1, kStreamMeta, "stream"));
    return 0;
  });
}

static int stream_query(lua_State* L) {
  return guard(L, [&] {
    lua_pushboolean(L, check_live<cu::Stream>(L, 1, kStreamMeta, "stream").query());
    return 1;
  });
}

// ---- events -------------------------------------------------------------------------------

static int cuda_event(lua_State* L) {
  return guard(L, [&] {
    const cu::ContextPtr& ctx = record_of(L).run.gpu_context("cuda.event");
    new (lua_newuserdatauv(L, sizeof(cu::Event), 0)) cu::Event(ctx);  // +1
    luaL_setmetatable(L, kEventMeta);
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
    lab::synchronize(record_of(L).run, check_live<cu::Event>(L, 1, kEventMeta, "event"));
    return 0;
  });
}

// ev:elapsed(later) -> milliseconds between two recorded events.
static int event_elapsed(lua_State* L) {
  return guard(L, [&] {
    auto& a = check_live<cu::Event>(L, 1, kEventMeta, "event");
    auto& b = check_live<cu::Event>(L, 2, kEventMeta, "event");
    lab::synchronize(record_of(L).run, b);
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
    const int warmup = count_field(L, 2, "warmup", 5, "cuda.bench"),
              reps = count_field(L, 2, "reps", 100, "cuda.bench");
    luaL_argcheck(L, warmup >= 0 && reps >= 1, 2, "warmup must be >= 0 and reps >= 1");
    CUstream stream = nullptr;
    if (lua_istable(L, 2) && lua_getfield(L, 2, "stream") != LUA_TNIL) stream = opt_stream(L, -1);
    lab::Run& run = record_of(L).run;
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
  const luaL_Reg fns[] = {{"stream", cuda_stream}, {"event", cuda_event}, {"synchronize", cuda_synchronize},
                          {"bench", cuda_bench},   {"clock", cuda_clock}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
