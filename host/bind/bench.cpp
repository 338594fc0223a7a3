// bench.cpp: timing from Lua: cuda.bench (a Lua function's GPU work timed with device
// events, never host clocks), cuda.clock (the host's steady clock), and push_timing, the
// one statistics path cuda.bench and k:bench (kernel.cpp) share. The events and their
// times and what a capture refuses are lab's (lab/timing.hpp).
#include <chrono>
#include <cstddef>
#include <vector>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/timing.hpp"

namespace warplab::bind {
namespace {

// cuda.clock() -> milliseconds on the host's steady clock (works offline).
int cuda_clock(lua_State* L) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  lua_pushnumber(L, std::chrono::duration<double, std::milli>(now).count());  // +1
  return 1;
}

// cuda.bench(fn, {warmup=5, reps=100, stream=s}): calls fn warmup times, then reps
// times between two events recorded on `stream` (default stream when absent).
// fn runs Lua code while the events are recorded on `stream`: the stream is held
// (StreamHold), so a s:free() inside fn destroys it only once cuda.bench returns.
static int cuda_bench(lua_State* L) {
  return guard(L, [&] {
    arg_check_type(L, 1, LUA_TFUNCTION);
    check_option_keys(L, 2, "cuda.bench", {"warmup", "reps", "stream"});
    const int warmup = count_option(L, 2, "warmup", 5, 0, kMaxBenchReps, "cuda.bench"),
              reps = count_option(L, 2, "reps", 100, 1, kMaxBenchReps, "cuda.bench");
    lua_settop(L, 2);
    if (lua_istable(L, 2))
      lua_getfield(L, 2, "stream");  // +1 (index 3, kept there while the hold lives)
    else
      lua_pushnil(L);  // +1
    const StreamHold hold(L, 3, "cuda.bench");
    const CUstream stream = hold.get();
    lab::Run& run = record_of(L).run;
    lab::EventTimes times(run, stream, reps, "cuda.bench");  // refused during a capture; needs a GPU
    for (int i = 0; i < warmup; ++i) {
      lua_pushvalue(L, 1);  // +1
      lua_call(L, 0, 0);    // -1
    }
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

void add_bench(lua_State* L) {
  const luaL_Reg fns[] = {{"bench", cuda_bench}, {"clock", cuda_clock}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
