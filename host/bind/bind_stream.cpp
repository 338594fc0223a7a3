// bind_stream.cpp: cuda.stream(), cuda.event(), cuda.synchronize() and cuda.bench(),
// which times a Lua function's GPU work with device events (never host clocks), and
// cuda.clock(), the host's monotonic clock for timing host-side work (a launch call).
// Depends on cu/stream.hpp and bind/fault.hpp (asynchronous errors name their launch).
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <vector>

#include "bind/fault.hpp"
#include "bind/guard.hpp"
#include "bind/modules.hpp"
#include "bind/runtime.hpp"
#include "bind/sandbox.hpp"
#include "bind/stream.hpp"

namespace warplab::bind {

CUstream opt_stream(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return nullptr;
  auto* s = static_cast<cu::Stream*>(luaL_testudata(L, idx, kStreamMeta));
  if (!s) luaL_error(L, "stream must be a cuda.stream() or nil, got %s", luaL_typename(L, idx));
  if (!s->valid()) luaL_error(L, "attempt to use a destroyed stream");
  return s->get();
}

namespace {

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
int stream_release(lua_State* L) { return release<cu::Stream>(L, kStreamMeta); }
int event_release(lua_State* L) { return release<cu::Event>(L, kEventMeta); }
int stream_gc(lua_State* L) {
  static_cast<cu::Stream*>(luaL_checkudata(L, 1, kStreamMeta))->~Stream();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}
int event_gc(lua_State* L) {
  static_cast<cu::Event*>(luaL_checkudata(L, 1, kEventMeta))->~Event();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}

// cuda.stream([{non_blocking = true}]). By default a stream synchronizes with the legacy
// default stream, which array copies, fills and a:get() use: work queued on it is
// finished before a:get() reads. non_blocking = true opts out (overlap experiments).
WL_LUA_FN(cuda_stream) {
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
}

WL_LUA_FN(stream_synchronize) {
  check_live<cu::Stream>(L, 1, kStreamMeta, "stream");
  checked_sync(L, [&] { static_cast<cu::Stream*>(lua_touserdata(L, 1))->synchronize(); });
  return 0;
}

WL_LUA_FN(stream_query) {
  lua_pushboolean(L, check_live<cu::Stream>(L, 1, kStreamMeta, "stream").query());
  return 1;
}

WL_LUA_FN(cuda_event) {
  const cu::ContextPtr& ctx = gpu_context(L, "cuda.event");
  new (lua_newuserdatauv(L, sizeof(cu::Event), 0)) cu::Event(ctx);  // +1
  luaL_setmetatable(L, kEventMeta);
  return 1;
}

WL_LUA_FN(event_record) {
  check_live<cu::Event>(L, 1, kEventMeta, "event").record(opt_stream(L, 2));
  lua_settop(L, 1);
  return 1;
}

WL_LUA_FN(event_synchronize) {
  auto& e = check_live<cu::Event>(L, 1, kEventMeta, "event");
  checked_sync(L, [&] { e.synchronize(); });
  return 0;
}

// ev:elapsed(later) -> milliseconds between two recorded events.
WL_LUA_FN(event_elapsed) {
  auto& a = check_live<cu::Event>(L, 1, kEventMeta, "event");
  auto& b = check_live<cu::Event>(L, 2, kEventMeta, "event");
  checked_sync(L, [&] { b.synchronize(); });
  lua_pushnumber(L, cu::elapsed_ms(a, b));
  return 1;
}

WL_LUA_FN(cuda_synchronize) {
  const cu::ContextPtr& ctx = gpu_context(L, "cuda.synchronize");
  checked_sync(L, [&] { ctx->synchronize(); });
  return 0;
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
WL_LUA_FN(cuda_bench) {
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
  std::vector<cu::Event> ev;
  ev.reserve(2 * static_cast<std::size_t>(reps));
  for (int i = 0; i < 2 * reps; ++i) ev.emplace_back(ctx);
  for (int i = 0; i < reps; ++i) {
    ev[2 * i].record(stream);
    lua_pushvalue(L, 1);  // +1
    lua_call(L, 0, 0);    // -1
    ev[2 * i + 1].record(stream);
  }
  checked_sync(L, [&] { ev.back().synchronize(); });
  std::vector<double> ms(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) ms[i] = cu::elapsed_ms(ev[2 * i], ev[2 * i + 1]);
  push_timing(L, ms);  // +1
  return 1;
}

}  // namespace

void push_timing(lua_State* L, std::vector<double> ms) {
  double sum = 0;
  for (double x : ms) sum += x;
  const double mean = sum / static_cast<double>(ms.size());
  double var = 0;
  for (double x : ms) var += (x - mean) * (x - mean);
  lua_createtable(L, 0, 7);                            // +1 result
  lua_createtable(L, static_cast<int>(ms.size()), 0);  // +1 samples
  for (std::size_t i = 0; i < ms.size(); ++i) {
    lua_pushnumber(L, ms[i]);                             // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setfield(L, -2, "samples");  // -1
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  const std::pair<const char*, double> fields[] = {
      {"median", median},
      {"min", ms.front()},
      {"max", ms.back()},
      {"mean", mean},
      {"stdev", n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0.0}};
  for (const auto& [k, v] : fields) {
    lua_pushnumber(L, v);    // +1
    lua_setfield(L, -2, k);  // -1
  }
  lua_pushinteger(L, static_cast<lua_Integer>(n));  // +1
  lua_setfield(L, -2, "n");                         // -1
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
  luaL_newmetatable(L, kStreamMeta);  // +1
  lock_metatable(L, kStreamMeta);     // getmetatable() gives the name, never the table
  luaL_newlib(L, stream_methods);     // +1
  lua_setfield(L, -2, "__index");     // -1
  lua_pushcfunction(L, stream_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, stream_release);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);                     // -1
  luaL_newmetatable(L, kEventMeta);  // +1
  lock_metatable(L, kEventMeta);     // getmetatable() gives the name, never the table
  luaL_newlib(L, event_methods);     // +1
  lua_setfield(L, -2, "__index");    // -1
  lua_pushcfunction(L, event_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, event_release);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);  // -1
  const luaL_Reg fns[] = {{"stream", cuda_stream}, {"event", cuda_event}, {"synchronize", cuda_synchronize},
                          {"bench", cuda_bench},   {"clock", cuda_clock}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
