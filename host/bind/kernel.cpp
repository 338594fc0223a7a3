// kernel.cpp: kernel handles (m:kernel and m.name make them): the userdata; the fields and
// tostring; k:occupancy; k:launch, k{...}, k:bench, k:counters and k:lines; k:check and
// k:clusters; then the metatable. What the fields show and every rule are lab's (lab/kernel_info.hpp,
// lab/launch.hpp), the launch table launch_args.cpp's.
#include <memory>
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
#include "cu/launch.hpp"
#include "lab/kernel_info.hpp"
#include "lab/launch.hpp"

namespace warplab::bind {

// Each handle has a metatable of its own (metatable.hpp own_metatables): k:launch finds
// its method inside Lua.
void push_kernel(lua_State* L, lab::KernelRef k) {
  new (lua_newuserdatauv(L, sizeof(lab::KernelRef), 0)) lab::KernelRef(std::move(k));  // +1
  set_object_metatable(L, -1, kKernelMeta);
}

namespace {

// ---- the userdata -------------------------------------------------------------------------

// By the memo of kernel handles, else by its metatable (test_udata: each handle has its
// own); arg_udata words the error otherwise.
lab::KernelRef& check_kernel(lua_State* L, int idx, StateRecord& st) {
  if (void* p = memo_testudata(L, idx, st.kernel_memo, [](lua_State* s, int at) {
        return test_udata(s, at, kKernelMeta);
      })) [[likely]]
    return *static_cast<lab::KernelRef*>(p);
  return *static_cast<lab::KernelRef*>(arg_udata(L, idx, kKernelMeta));
}

lab::KernelRef& check_kernel(lua_State* L, int idx) { return check_kernel(L, idx, record_of(L)); }

// By name (arg_udata), as every finalizer here: only the launch path needs the fast test.
// The memo forgets the handle first: its metatable changes now, its memory goes later.
int kernel_gc(lua_State* L) {
  record_of(L).kernel_memo.forget(lua_touserdata(L, 1));
  return finalize<lab::KernelRef>(L, kKernelMeta);
}

// ---- fields -------------------------------------------------------------------------------

// An offline number the compile could not give is nil, never 0 (rtc/resources.hpp).
void push_opt(lua_State* L, const std::optional<long long>& v) {
  if (v)
    lua_pushinteger(L, static_cast<lua_Integer>(*v));
  else
    lua_pushnil(L);
}

// The fields (__index found no method of that name: metatable.hpp); lab/kernel_info.hpp
// derives them.
static int kernel_index(lua_State* L) {
  return guard(L, [&] {
    const lab::KernelObj& k = *check_kernel(L, 1);
    const std::string key = arg_string(L, 2);
    std::optional<long long> number;
    if (key == "name")
      lua_pushstring(L, k.display.c_str());
    else if (key == "mangled")
      lua_pushstring(L, k.mangled.c_str());
    else if (key == "signature")
      lua_pushstring(L, lab::signature_text(k).c_str());
    else if (key == "arch")
      lua_pushstring(L, k.module->result.arch.c_str());
    else if (key == "sass")  // runs cuobjdump or nvdisasm (rtc/sass.hpp)
      lua_pushstring(L, lab::kernel_sass(k).c_str());
    else if (key == "params") {
      lua_newtable(L);  // +1 list
      for (std::size_t i = 0; k.sig && i < k.sig->params.size(); ++i) {
        lua_pushstring(L, k.sig->params[i].spelling.c_str());  // +1
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));   // -1
      }
    } else if (lab::kernel_number(k, key, number)) {
      push_opt(L, number);
    } else {
      raise(L, "kernel has no field or method '%s'", key.c_str());
    }
    return 1;
  });
}

static int kernel_tostring(lua_State* L) {
  return guard(L, [&] {
    lua_pushstring(L, lab::kernel_summary(*check_kernel(L, 1)).c_str());
    return 1;
  });
}

// ---- k:occupancy --------------------------------------------------------------------------

void set_int(lua_State* L, const char* k, long long v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

// k:occupancy's answer as a Lua table: warplab's calculator's numbers (plus the driver's
// when a GPU is present).
void push_occupancy(lua_State* L, int block, const lab::OccupancyReport& rep) {
  const cu::OccupancyResult& r = rep.calc;
  lua_createtable(L, 0, 20);  // +1 result
  set_int(L, "block", block);
  set_int(L, "blocks_per_sm", r.blocks_per_sm);
  set_int(L, "warps_per_block", r.warps_per_block);
  set_int(L, "active_warps", r.active_warps_per_sm);
  set_int(L, "max_warps", r.max_warps_per_sm);
  lua_pushnumber(L, r.occupancy);
  lua_setfield(L, -2, "occupancy");                                     // +1 -1
  lua_pushstring(L, std::string(cu::limiter_name(r.limiter)).c_str());  // +1
  lua_setfield(L, -2, "limiter");                                       // -1
  const std::pair<const char*, int> by[] = {{"by_warps", r.by_warps},
                                            {"by_registers", r.by_registers},
                                            {"by_shared", r.by_shared},
                                            {"by_blocks", r.by_blocks},
                                            {"by_barriers", r.by_barriers}};
  for (const auto& [name, v] : by) v == cu::kNoLimit ? (void)0 : set_int(L, name, v);
  set_int(L, "regs_per_block", r.regs_per_block);
  set_int(L, "shared_per_block", r.shared_per_block);
  set_int(L, "shared_per_sm", r.shared_per_sm);
  if (!r.reason.empty()) {
    lua_pushstring(L, r.reason.c_str());
    lua_setfield(L, -2, "reason");
  }
  if (rep.has_driver) {
    set_int(L, "driver_blocks_per_sm", rep.driver_blocks);
    if (!rep.driver_error.empty()) {
      lua_pushstring(L, rep.driver_error.c_str());
      lua_setfield(L, -2, "driver_error");
    }  // +1 -1
  }
}

// An optional integer field of the options table at index 2 (or dflt): a number with an
// integral value (2^8), as launch dimensions take them, not a numeric string.
long long opt_int(lua_State* L, const char* field, long long dflt) {
  lua_Integer v = dflt;
  if (lua_getfield(L, 2, field) != LUA_TNIL &&  // +1
      (lua_type(L, -1) != LUA_TNUMBER || !read_integer(L, -1, LUA_MININTEGER, LUA_MAXINTEGER, v)))
    raise(L, "occupancy: %s must be an integer, got %s", field, luaL_tolstring(L, -1, nullptr));
  lua_pop(L, 1);  // -1
  return v;
}

// k:occupancy{block = 256, shared = 0, carveout = -1} (or k:occupancy(256)): the options
// read here; the checks and the answer are lab/kernel_info.hpp's.
static int kernel_occupancy(lua_State* L) {
  return guard(L, [&] {
    const lab::KernelObj& k = *check_kernel(L, 1);
    lab::OccupancyRequest req;
    if (lua_type(L, 2) == LUA_TNUMBER) {  // k:occupancy(256), also 256.0 or 2^8
      lua_Integer block = 0;
      if (!read_integer(L, 2, LUA_MININTEGER, LUA_MAXINTEGER, block))
        raise(L, "occupancy: block must be a whole number of threads, got %s", luaL_tolstring(L, 2, nullptr));
      req.block = block;
    } else {
      if (!lua_istable(L, 2)) arg_type_error(L, 2, "table {block = ...} or a block size");
      check_option_keys(L, 2, "occupancy", {"block", "shared", "carveout"});  // "share" is no typo to ignore
      req.block = opt_int(L, "block", 0);
      req.shared = opt_int(L, "shared", 0);
      req.carveout = opt_int(L, "carveout", -1);
    }
    const cu::DeviceLimits& d = record_of(L).run.limits();
    if (const auto why = lab::occupancy_error(k, req, d)) raise(L, "%s", why->c_str());
    push_occupancy(L, static_cast<int>(req.block), lab::occupancy_report(k, req, d));
    return 1;
  });
}

// ---- k:launch, k{...}, k:bench: the configuration, the arguments marshaled and the calling
// line read here, then one call down: lab::launch checks, notes, launches (lab/launch.hpp) --

// The launch once read: made now, noted with its calling line; or, during a capture, captured
// into the graph (no line is read: nothing runs, nothing is noted), its arrays kept alive
// with the graph.
inline void launch_read(lua_State* L, StateRecord& st, lab::KernelObj& k, const cu::LaunchConfig& c,
                        const char* arg_error) {
  if (!st.run.capture.active()) [[likely]]
    return lab::launch(st.run, k, c, arg_error, launch_site(L, st));
  lab::launch(st.run, k, c, arg_error, lab::Where{});
  if (st.new_use_count) keep_launch_args(L, st);  // an array new to the capture
}

static int kernel_launch(lua_State* L) {
  return guard(L, [&] {
    StateRecord& st = record_of(L);
    lab::KernelObj& k = *check_kernel(L, 1, st);
    cu::LaunchConfig c;
    c.grid = check_dim(L, 2, "grid");
    c.block = check_dim(L, 3, "block");
    const int n = lua_gettop(L) - 3;
    launch_read(L, st, k, c, marshal(L, st, k, 4, n));
    return 0;
  });
}

// k{grid=, block=, ...}
static int kernel_call(lua_State* L) {
  return guard(L, [&] {
    StateRecord& st = record_of(L);
    lab::KernelObj& k = *check_kernel(L, 1, st);
    arg_check_type(L, 2, LUA_TTABLE);
    TableLaunch t = read_launch_table(L, 2, true);  // +fields +n
    const char* arg_error = marshal(L, st, k, t.first, t.n);
    if (arg_error) [[unlikely]]
      recheck_stream(L, t);
    launch_read(L, st, k, t.config, arg_error);
    return 0;
  });
}

// k:bench{grid=, block=, shared=, stream=, args={}, warmup=5, reps=100}: checks everything
// once, then launches reusing the marshaled arguments (lab::bench). warmup and reps are
// read before the launch table (read_launch_table takes the stream last).
static int kernel_bench(lua_State* L) {
  return guard(L, [&] {
    StateRecord& st = record_of(L);
    lab::KernelObj& k = *check_kernel(L, 1, st);
    arg_check_type(L, 2, LUA_TTABLE);
    const int warmup = count_option(L, 2, "warmup", 5, 0, kMaxBenchReps, "bench"),
              reps = count_option(L, 2, "reps", 100, 1, kMaxBenchReps, "bench");
    TableLaunch t = read_launch_table(L, 2, true);  // +fields +n
    const char* arg_error = marshal(L, st, k, t.first, t.n);
    if (arg_error) [[unlikely]]
      recheck_stream(L, t);
    push_timing(L, lab::bench(st.run, k, t.config, arg_error, launch_site(L, st), warmup, reps));  // +1
    return 1;
  });
}

// k:counters{grid=, block=, shared=, stream=, args={}, metrics={"shared", ...}}: one launch,
// read as k{...} reads it, inside a counter session; its row (counters.cpp).
static int kernel_counters(lua_State* L) {
  return guard(L, [&] {
    StateRecord& st = record_of(L);
    lab::KernelObj& k = *check_kernel(L, 1, st);
    arg_check_type(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_getfield(L, 2, "metrics");  // +1
    if (lua_isnil(L, -1))
      raise(L, "k:counters: metrics = {...} names the counters, e.g. metrics = {\"shared\"}");
    const std::vector<std::string> words = counter_words(L, 3, "k:counters");
    lua_pop(L, 1);                                  // -1
    TableLaunch t = read_launch_table(L, 2, true);  // +fields +n
    const char* arg_error = marshal(L, st, k, t.first, t.n);
    if (arg_error) recheck_stream(L, t);
    const lab::Where where = launch_site(L, st);
    return push_counted(
        L, words, "k:counters", [&] { lab::launch(st.run, k, t.config, arg_error, where); }, true);
  });
}

// k:lines() -> rows: the kernel's map, which lines made which instructions (no GPU, no
// launch); k:lines{grid=, block=, shared=, stream=, args={}, columns="shared"}: one launch,
// read as k{...} reads it, inside a line session; its rows (lines.cpp).
static int kernel_lines(lua_State* L) {
  return guard(L, [&] {
    StateRecord& st = record_of(L);
    lab::KernelObj& k = *check_kernel(L, 1, st);
    if (lua_isnoneornil(L, 2)) return push_kernel_lines(L, k);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    std::vector<std::string> words;
    if (lua_getfield(L, 2, "columns") != LUA_TNIL) words = counter_words(L, 3, "k:lines");  // +1
    lua_pop(L, 1);                                                                          // -1
    TableLaunch t = read_launch_table(L, 2, true);                                          // +fields +n
    const char* arg_error = marshal(L, st, k, t.first, t.n);
    if (arg_error) recheck_stream(L, t);  // the sentence's making may have run a finalizer
    const lab::Where where = launch_site(L, st);
    return push_collected(L, words, "k:lines", [&] { lab::launch(st.run, k, t.config, arg_error, where); });
  });
}

// ---- k:check, k:clusters: off the launch path, the launch table read as a launch reads it --

// k:check{grid=, block=, shared=, cooperative=, cluster=, args=} -> true | false, why
// (works offline; on a GPU a cluster is also asked of the driver). With args, they get
// the launch's checks too: count, types, integer ranges.
static int kernel_check(lua_State* L) {
  return guard(L, [&] {
    StateRecord& st = record_of(L);
    lab::KernelObj& k = *check_kernel(L, 1, st);
    arg_check_type(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    const bool has_args = lua_getfield(L, 2, "args") != LUA_TNIL;  // +1
    lua_pop(L, 1);                                                 // -1
    const TableLaunch t = read_launch_table(L, 2, has_args);       // +fields +n
    std::optional<std::string> why;
    if (const auto broken = lab::broken_rule(k, t.config, st.run.limits()))
      why = broken->sentence;
    else if (has_args)
      if (const char* arg_error = marshal(L, st, k, t.first, t.n)) why = arg_error;
    lua_pushboolean(L, !why);  // +1
    if (!why) return 1;
    lua_pushstring(L, why->c_str());  // +1
    return 2;
  });
}

// k:clusters{grid=, block=, cluster=, shared=} -> how many such clusters can be resident
// at once (cuOccupancyMaxActiveClusters), or nil and why: a broken rule, or no GPU.
static int kernel_clusters(lua_State* L) {
  return guard(L, [&] {
    lab::KernelObj& k = *check_kernel(L, 1);
    arg_check_type(L, 2, LUA_TTABLE);
    cu::LaunchConfig c = config_from_table(L, 2);
    c.cluster = cu::cluster_of(c, k.limits);  // a compile-time cluster when cluster = is left out
    if (!c.clustered()) raise(L, "clusters: the launch table needs cluster =");
    lab::Run& run = record_of(L).run;
    std::optional<std::string> why;
    if (const auto broken = lab::broken_rule(k, c, run.limits(), false))  // the driver is asked below
      why = broken->sentence;
    else if (!k.fn)
      why = "cuOccupancyMaxActiveClusters needs a GPU (" + run.offline_reason() + ")";
    if (why) {
      luaL_pushfail(L);                 // +1
      lua_pushstring(L, why->c_str());  // +1
      return 2;
    }
    // The driver judges the size first (a size it refuses is a sentence, never its error
    // code; 0 clusters is an answer, not a refusal), then gives its count.
    if (const auto v = lab::broken_rule(k, c, run.limits(), true);
        v && v->limit != cu::Limit::cluster_schedule) {
      luaL_pushfail(L);                        // +1
      lua_pushstring(L, v->sentence.c_str());  // +1
      return 2;
    }
    lua_pushinteger(L, cu::max_active_clusters(*k.fn, c));  // +1
    return 1;
  });
}

}  // namespace

// ---- the metatable: the methods and __call read launch tables, so all are closures over
// the table's keys (args.hpp) -----------------------------------------------------------------

void add_kernel(lua_State* L) {
  static constexpr const char* fields[] = {"name",           "mangled",      "signature",   "params",
                                           "regs",           "shared_bytes", "local_bytes", "const_bytes",
                                           "spill_bytes",    "barriers",     "max_threads", "ptx_version",
                                           "binary_version", "arch",         "sass",        nullptr};
  const luaL_Reg meta[] = {{"__index", kernel_index},
                           {"__call", kernel_call},
                           {"__tostring", kernel_tostring},
                           {"__gc", kernel_gc},
                           {nullptr, nullptr}};
  const luaL_Reg methods[] = {{"launch", kernel_launch},       {"check", kernel_check},
                              {"bench", kernel_bench},         {"clusters", kernel_clusters},
                              {"counters", kernel_counters},   {"lines", kernel_lines},
                              {"occupancy", kernel_occupancy}, {nullptr, nullptr}};
  push_launch_keys(L);  // +keys
  register_type(L, {.name = kKernelMeta,
                    .meta = meta,
                    .methods = methods,
                    .fields = fields,
                    .upvalues = kLaunchKeys,
                    .var = "k",
                    .own_metatables = true});  // -keys
}

}  // namespace warplab::bind
