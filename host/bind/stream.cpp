// stream.cpp: streams (cuda.stream{priority =, non_blocking =}, s.priority,
// s.non_blocking, s:wait/synchronize/query/free) and cuda.synchronize: the userdata and
// its release, the fields, the methods, then the registration. Waiting, the stream book
// and what a capture refuses are lab's (lab/sync.hpp: the watchdog; lab/stream.hpp;
// lab/capture.hpp). Events are event.cpp's.
#include <cstdio>
#include <exception>
#include <optional>
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

CUstream opt_stream(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return nullptr;
  auto* s = static_cast<StreamHandle*>(luaL_testudata(L, idx, kStreamMeta));
  if (!s) raise(L, "stream must be a cuda.stream() or nil, got %s", luaL_typename(L, idx));
  if (!s->live()) raise(L, "attempt to use a destroyed stream");
  return s->stream.get();
}

StreamHold::StreamHold(lua_State* L, int idx, const char* who) : L_(L) {
  if (opt_stream(L, idx)) {
    h_ = static_cast<StreamHandle*>(lua_touserdata(L, idx));
    if (h_->holds++ == 0) h_->held_by = who;
  }
}

// The last hold ends: a stream released meanwhile is destroyed now (as stream_release).
StreamHold::~StreamHold() {
  if (!h_ || --h_->holds > 0 || !h_->released) return;
  record_of(L_).run.streams.remove(h_->stream);
  h_->stream.destroy();
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

// ---- the userdata: the live stream at idx (raises once it was freed) -------------------

StreamHandle& check_stream(lua_State* L, int idx) {
  auto* p = static_cast<StreamHandle*>(arg_udata(L, idx, kStreamMeta));
  if (!p->live()) raise(L, "attempt to use a destroyed stream");
  return *p;
}

// cuda.stream([{non_blocking = true, priority = p}]). By default a stream synchronizes with
// the legacy default stream, which array copies, fills and a:get() use: work queued on it
// is finished before a:get() reads. non_blocking = true opts out (overlap experiments).
// priority: an integer in the device's range (lab::check_priority), a smaller one first.
static int cuda_stream(lua_State* L) {
  return guard(L, [&] {
    check_option_keys(L, 1, "cuda.stream", {"non_blocking", "priority"});
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

// :free() and __close: refused while the stream is part of a running capture; during a
// call that holds it (StreamHold: cuda.bench timing its work on it) the stream reads as
// destroyed at once and goes when that call returns, which a note on stderr says.
int stream_release(lua_State* L) {
  return guard(L, [L] {
    auto* h = static_cast<StreamHandle*>(arg_udata(L, 1, kStreamMeta));
    lab::Run& run = record_of(L).run;
    if (h->holds > 0) {
      run.capture.check_stream_free(h->stream.get(), "s:free()");
      if (!h->released) {
        h->released = true;
        luaL_where(L, 1);  // +1 "x.lua:5: "
        std::fprintf(stderr,
                     "warplab: %ss:free() while %s uses this stream: the stream is destroyed when %s "
                     "returns\n",
                     lua_tostring(L, -1), h->held_by, h->held_by);
      }
      return 0;
    }
    lab::free_stream(run, h->stream);  // refused while a capture uses it
    return 0;
  });
}

// __gc: the release, but one that cannot raise.
int stream_gc(lua_State* L) {
  auto* h = static_cast<StreamHandle*>(arg_udata(L, 1, kStreamMeta));
  // A stream a capture still uses is left to the process's exit, not destroyed under it.
  if (!lab::free_stream_quietly(record_of(L).run, h->stream)) new StreamHandle{std::move(*h)};  // leaked
  return finalize<StreamHandle>(L, kStreamMeta);
}

static int stream_index(lua_State* L) {
  return guard(L, [L] {
    const StreamHandle& h = check_stream(L, 1);
    const std::string key = arg_string(L, 2);
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
    const auto* h = static_cast<StreamHandle*>(arg_udata(L, 1, kStreamMeta));
    if (!h->live())
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
    lua_pushboolean(L, lab::query(record_of(L).run, h.stream, "s:query()"));  // refused during a capture
    return 1;
  });
}

// s:wait(e): later work on s waits for what e recorded. During a capture both handles
// stay alive with the graph (s may have joined the capture through e).
static int stream_wait(lua_State* L) {
  return guard(L, [&] {
    const StreamHandle& h = check_stream(L, 1);
    const cu::Event& e = check_event(L, 2);
    lab::Run& run = record_of(L).run;
    lab::wait_event(run, h.stream, e);  // what a capture allows: lab/stream.hpp
    if (run.capture.active()) {
      keep_in_capture(L, 1);
      keep_in_capture(L, 2);
    }
    lua_settop(L, 1);
    return 1;
  });
}

// ---- cuda.synchronize ---------------------------------------------------------------------

static int cuda_synchronize(lua_State* L) {
  return guard(L, [&] {
    lab::synchronize(record_of(L).run);
    return 0;
  });
}

}  // namespace

void add_stream(lua_State* L) {
  static constexpr const char* fields[] = {"priority", "non_blocking", nullptr};
  const luaL_Reg meta[] = {{"__index", stream_index},
                           {"__tostring", stream_tostring},
                           {"__gc", stream_gc},
                           {"__close", stream_release},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {{"wait", stream_wait},
                              {"synchronize", stream_synchronize},
                              {"query", stream_query},
                              {"free", stream_release},
                              {nullptr, nullptr}};
  register_type(L, {.name = kStreamMeta, .meta = meta, .methods = methods, .fields = fields, .var = "s"});
  const luaL_Reg fns[] = {{"stream", cuda_stream}, {"synchronize", cuda_synchronize}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
