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

void push_timing(lua_State* L, std::vector<double> ms) {
  lua_createtable(L, 0, 7);                            // +1 result
  lua_createtable(L, static_cast<int>(ms.size()), 0);  // +1 samples
  for (std::size_t i = 0; i < ms.size(); ++i) {
    lua_pushnumber(L, ms[i]);                             // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setfield(L, -2, "samples");  // -1
  const lab::TimingStats t = lab::timing_stats(std::move(ms));
  const std::pair<const char*, double> fields[] = {
      {"median", t.median}, {"min", t.min}, {"max", t.max}, {"mean", t.mean}, {"stdev", t.stdev}};
  for (const auto& [k, v] : fields) {
    lua_pushnumber(L, v);    // +1
    lua_setfield(L, -2, k);  // -1
  }
  lua_pushinteger(L, static_cast<lua_Integer>(t.n));  // +1
  lua_setfield(L, -2, "n");                           // -1
}

void add_stream(lua_State* L) {
  add_stream_metas(L);  // stream_methods.cpp
  const luaL_Reg fns[] = {{"stream", cuda_stream}, {"event", cuda_event}, {"synchronize", cuda_synchronize},
                          {"bench", cuda_bench},   {"clock", cuda_clock}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
