// graph.cpp: CUDA graphs from Lua. cuda.graph(fn) runs fn(s) while the driver captures
// the work queued on s (a non-blocking stream of the run's own; a launch that names no
// stream goes there too) and returns a graph: g:launch([stream]) replays it in one call,
// g:update(fn) captures again and updates the graph in place or instantiates it anew
// (saying why), g.nodes, g.freed, g:free() / <close> / __gc. The graph keeps the Lua handles
// its work uses (arrays, and streams and events that joined the capture) in its user value,
// so a garbage collection cannot free an array under it; an explicit a:free() still frees,
// and g:launch then refuses. The rules are lab's (lab/capture.hpp, lab/graph.hpp).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "bind/args.hpp"
#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/graph.hpp"

namespace warplab::bind {
namespace {

// Registry keys (their addresses): the table of what the running capture keeps, and the
// stream cuda.graph captures on (made once per state, again if a script freed it).
const char kKeepKey = 0;
const char kCaptureStreamKey = 0;

}  // namespace

void keep_in_capture(lua_State* L, int idx) {
  if (!record_of(L).run.capture.active()) return;
  idx = lua_absindex(L, idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kKeepKey) != LUA_TTABLE) {  // +1 keep
    lua_pop(L, 1);                                                   // -1
    return;
  }
  lua_pushvalue(L, idx);  // +1 key
  lua_pushboolean(L, 1);  // +1
  lua_rawset(L, -3);      // -2: keep[value] = true
  lua_pop(L, 1);          // -1 keep
}

void keep_launch_args(lua_State* L, StateRecord& st) {
  // What marshal found new to the capture (the launch was captured, so its arguments were
  // all read): an array, or a tensor map, whose array is used too (the replay reads the
  // memory the map describes).
  for (std::size_t j = 0; j < st.new_use_count; ++j) {
    const StateRecord::NewUse u = st.new_uses[j];
    if (u.array) {
      if (st.run.capture.use(*u.array)) keep_in_capture(L, u.idx);  // once per buffer
    } else if (test_tensor_map(L, u.idx)) {
      lua_getiuservalue(L, u.idx, 1);  // +1 the array (the launch refused a released map)
      if (auto* a = static_cast<lab::DeviceArray*>(fast_testudata(L, -1, st.array_meta, kArrayMeta)))
        if (st.run.capture.use(*a)) keep_in_capture(L, -1);
      lua_pop(L, 1);  // -1
    }
  }
  st.new_use_count = 0;
}

namespace {

// ---- the userdata -------------------------------------------------------------------------

lab::GraphObj& check_graph(lua_State* L, int idx) {
  StateRecord& st = record_of(L);
  if (void* p = fast_testudata(L, idx, st.graph_meta, kGraphMeta)) return *static_cast<lab::GraphObj*>(p);
  return *static_cast<lab::GraphObj*>(arg_udata(L, idx, kGraphMeta));
}

// A new, empty (freed) graph handle with one user value, what the graph keeps.
lab::GraphObj& push_graph(lua_State* L) {
  auto* g = new (lua_newuserdatauv(L, sizeof(lab::GraphObj), 1)) lab::GraphObj();  // +1
  luaL_setmetatable(L, kGraphMeta);
  return *g;
}

// :free() and __close (idempotent): the graph and what it kept go now (during a capture,
// the driver's objects once it ends: lab::Capture::release).
int graph_release(lua_State* L) {
  static_cast<lab::GraphObj*>(arg_udata(L, 1, kGraphMeta))->free(record_of(L).run.capture);
  lua_pushnil(L);              // +1
  lua_setiuservalue(L, 1, 1);  // -1: the arrays it kept may be collected
  return 0;
}

int graph_gc(lua_State* L) {
  graph_release(L);
  return finalize<lab::GraphObj>(L, kGraphMeta);
}

// ---- the capture ----------------------------------------------------------------------------

// Pushes the stream cuda.graph captures on: the state's own non-blocking stream (a
// blocking one would wait for the legacy default stream, which a capture cannot record).
StreamHandle& push_capture_stream(lua_State* L, const cu::ContextPtr& ctx) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &kCaptureStreamKey) == LUA_TUSERDATA) {  // +1
    auto* h = static_cast<StreamHandle*>(luaL_testudata(L, -1, kStreamMeta));
    if (h && h->live()) return *h;
  }
  lua_pop(L, 1);                                              // -1
  StreamHandle& h = push_stream(L, ctx, true, std::nullopt);  // +1
  lua_pushvalue(L, -1);                                       // +1
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kCaptureStreamKey);      // -1
  return h;
}

void drop_keep(lua_State* L) {
  lua_pushnil(L);                                // +1
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kKeepKey);  // -1
}

// Runs the function at `fn` as fn(s) while capturing on s; `who` ("cuda.graph",
// "g:update") and the calling line name the capture. Returns what was captured and leaves
// the table of handles it keeps on the stack. An error in fn ends the capture (its partial
// graph dropped) and is raised again as it was; a capture the driver refused at its end
// raises lab's sentence.
lab::Captured capture(lua_State* L, int fn, const char* who) {
  StateRecord& st = record_of(L);
  lab::Run& run = st.run;
  const cu::ContextPtr& ctx = run.gpu_context(who);
  const lab::Where w = launch_site(L, st);
  char where[LUA_IDSIZE + 16];  // "x.lua:3", or empty where no Lua line called
  std::size_t where_len = 0;
  if (w.line > 0) {
    where_len = std::strlen(w.source);  // below LUA_IDSIZE
    std::memcpy(where, w.source, where_len);
    where[where_len++] = ':';
    where_len =
        static_cast<std::size_t>(std::to_chars(where + where_len, std::end(where), w.line).ptr - where);
  }
  run.capture.check_begin(who);  // captures do not nest
  // What may fail to allocate comes before the capture begins: from there on every way
  // out of this function ends it. The keep table comes first: an allocation may run a
  // finalizer (a script's __gc), which could free the stream taken after it.
  lua_newtable(L);                                      // +1 keep
  const StreamHandle& s = push_capture_stream(L, ctx);  // +1 s
  const int s_idx = lua_gettop(L);
  lua_pushvalue(L, s_idx - 1);                   // +1 keep
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kKeepKey);  // -1
  lua_pushvalue(L, fn);                          // +1
  lua_pushvalue(L, s_idx);                       // +1
  try {
    run.capture.begin(ctx, s.stream.get(), who, std::string_view(where, where_len));
  } catch (...) {
    drop_keep(L);
    throw;
  }
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {  // -2 (+1 message)
    run.capture.abort();
    drop_keep(L);
    lua_error(L);  // fn's own error, as it was
  }
  lab::Captured c;
  try {
    c = run.capture.end();
  } catch (...) {
    drop_keep(L);
    throw;
  }
  drop_keep(L);
  lua_remove(L, s_idx);  // -1 s: keep is on top
  return c;
}

// ---- constructor, fields, methods ---------------------------------------------------------

// cuda.graph(fn) -> g
static int cuda_graph(lua_State* L) {
  return guard(L, [L] {
    arg_check_type(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lab::GraphObj& g = push_graph(L);               // +1 (index 2), empty until instantiated
    lab::Captured c = capture(L, 1, "cuda.graph");  // +1 keep
    g = lab::GraphObj(std::move(c));                // the deferred frees go after it
    lua_setiuservalue(L, 2, 1);                     // -1 keep
    return 1;
  });
}

// g:launch([stream]): one call, one cuGraphLaunch (lab::launch: the refusals are flags).
static int graph_launch(lua_State* L) {
  return guard(L, [L] {
    StateRecord& st = record_of(L);
    const lab::GraphObj& g = check_graph(L, 1);
    lab::launch(st.run, g, opt_stream(L, 2), launch_site(L, st));
    return 0;
  });
}

// g:update(fn) -> "updated" | "reinstantiated", why
static int graph_update(lua_State* L) {
  return guard(L, [L] {
    lab::GraphObj& g = check_graph(L, 1);
    if (g.freed()) raise(L, "%s", lab::kFreedGraph);  // before fn runs for nothing
    arg_check_type(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    lab::Captured c = capture(L, 2, "g:update");  // +1 keep
    if (g.freed()) raise(L, "g:update: the graph was freed while its function ran (g:free() inside fn)");
    const lab::GraphUpdate u = g.update(std::move(c));
    lua_setiuservalue(L, 1, 1);                                          // -1 keep: what the new work uses
    lua_pushstring(L, u.reinstantiated ? "reinstantiated" : "updated");  // +1
    if (!u.reinstantiated) return 1;
    lua_pushstring(L, u.why.c_str());  // +1
    return 2;
  });
}

static int graph_index(lua_State* L) {
  return guard(L, [L] {
    const lab::GraphObj& g = check_graph(L, 1);
    const std::string key = arg_string(L, 2);
    if (key == "nodes")
      lua_pushinteger(L, static_cast<lua_Integer>(g.nodes()));  // raises once freed
    else if (key == "freed")
      lua_pushboolean(L, g.freed());
    else
      raise(L, "graph has no field or method '%s'", key.c_str());
    return 1;
  });
}

static int graph_tostring(lua_State* L) {
  return guard(L, [L] {
    const lab::GraphObj& g = check_graph(L, 1);
    if (g.freed())
      lua_pushliteral(L, "cuda.graph (freed)");
    else
      lua_pushfstring(L, "cuda.graph (%d node%s, captured by %s)", static_cast<int>(g.nodes()),
                      g.nodes() == 1 ? "" : "s", g.label().c_str());
    return 1;
  });
}

}  // namespace

void add_graph(lua_State* L) {
  static constexpr const char* fields[] = {"nodes", "freed", nullptr};
  const luaL_Reg meta[] = {{"__index", graph_index},
                           {"__tostring", graph_tostring},
                           {"__gc", graph_gc},
                           {"__close", graph_release},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {
      {"launch", graph_launch}, {"update", graph_update}, {"free", graph_release}, {nullptr, nullptr}};
  register_type(L, {.name = kGraphMeta, .meta = meta, .methods = methods, .fields = fields, .var = "g"});
  const luaL_Reg fns[] = {{"graph", cuda_graph}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into cuda
}

}  // namespace warplab::bind
