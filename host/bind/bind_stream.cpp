// bind_stream.cpp: cuda.stream(), cuda.synchronize() and cuda.bench(), which times a Lua
// function's GPU work with device events (never host clocks; the loop and the statistics
// are lab/timing.hpp's), and cuda.clock(), the host's monotonic clock for timing host-side
// work (a launch call). The stream and event methods and cuda.event() are
// stream_methods.cpp's. Depends on cu/stream.hpp and bind/fault.hpp.
#include <chrono>
#include <climits>
#include <utility>
#include <vector>

#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/stream.hpp"
#include "lab/timing.hpp"

namespace warplab::bind {

CUstream opt_stream(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return nullptr;
  auto* s = static_cast<cu::Stream*>(luaL_testudata(L, idx, kStreamMeta));
  if (!s) luaL_error(L, "stream must be a cuda.stream() or nil, got %s", luaL_typename(L, idx));
  if (!s->valid()) luaL_error(L, "attempt to use a destroyed stream");
  return s->get();
}

namespace {

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
      return luaL_error(L, "cuda.stream takes nothing or {non_blocking = true}, got %s", luaL_typename(L, 1));
    }
    const cu::ContextPtr& ctx = gpu_context(L, "cuda.stream");
    new (lua_newuserdatauv(L, sizeof(cu::Stream), 0)) cu::Stream(ctx, non_blocking);  // +1
    luaL_setmetatable(L, kStreamMeta);
    return 1;
  });
}

static int cuda_synchronize(lua_State* L) {
  return guard(L, [&] {
    const cu::ContextPtr& ctx = gpu_context(L, "cuda.synchronize");
    checked_sync(L, [&] { ctx->synchronize(); });
    return 0;
  });
}

// cuda.clock() -> milliseconds on the host's steady clock (works offline).
int cuda_clock(lua_State* L) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  lua_pushnumber(L, std::chrono::duration<double, std::milli>(now).count());  // +1
  return 1;
}

int opt_field(lua_State* L, int t, const char* k, int dflt) {
  if (!lua_istable(L, t)) return dflt;
  lua_getfield(L, t, k);  // +1
  int exact = lua_isnil(L, -1);
  const lua_Integer v = exact ? dflt : lua_tointegerx(L, -1, &exact);
  if (!exact || v < 0 || v > INT_MAX) luaL_error(L, "cuda.bench: %s must be an integer >= 0", k);
  lua_pop(L, 1);  // -1
  return static_cast<int>(v);
}

// cuda.bench(fn, {warmup=5, reps=100, stream=s}): calls fn warmup times, then reps
// times between two events recorded on `stream` (default stream when absent).
static int cuda_bench(lua_State* L) {
  return guard(L, [&] {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    const int warmup = opt_field(L, 2, "warmup", 5), reps = opt_field(L, 2, "reps", 100);
    luaL_argcheck(L, warmup >= 0 && reps >= 1, 2, "warmup must be >= 0 and reps >= 1");
    CUstream stream = nullptr;
    if (lua_istable(L, 2) && lua_getfield(L, 2, "stream") != LUA_TNIL) stream = opt_stream(L, -1);
    const cu::ContextPtr& ctx = gpu_context(L, "cuda.bench");
    for (int i = 0; i < warmup; ++i) {
      lua_pushvalue(L, 1);  // +1
      lua_call(L, 0, 0);    // -1
    }
    auto call = [L] {
      lua_pushvalue(L, 1);  // +1
      lua_call(L, 0, 0);    // -1
    };
    auto wait = [L](cu::Event& last) { checked_sync(L, [&] { last.synchronize(); }); };
    push_timing(L, lab::time_events(ctx, stream, reps, call, wait));  // +1
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
    luaL_error(L, "timing needs warplab.stats.summary, but package.loaded[\"warplab.stats\"] was replaced");
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
  add_stream_metas(L);  // stream_methods.cpp
  const luaL_Reg fns[] = {{"stream", cuda_stream}, {"event", cuda_event}, {"synchronize", cuda_synchronize},
                          {"bench", cuda_bench},   {"clock", cuda_clock}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
