// lines.cpp: per-line counts from Lua: cuda.lines(fn [, columns]) (the rows of every kernel
// fn launched: what each source line did), cuda.lines(m | k) (the map alone, no GPU: which
// lines made which instructions, of what kind), cuda.lines_available(), and what k:lines
// (kernel.cpp) shares with them. The rows are a list of type warplab.lines: tostring gives
// the annotated listing, :hot(n) the n hottest rows. The session, the map and the listing
// are lab's (lab/lines.hpp, lab/line_map.hpp).
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/metatable.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "cu/cupti_lines.hpp"
#include "cu/range_profiler.hpp"
#include "lab/capture.hpp"
#include "lab/counters.hpp"
#include "lab/lines.hpp"
#include "lab/sync.hpp"
#include "rtc/signature.hpp"

namespace warplab::bind {
namespace {

constexpr const char* kLinesMeta = "warplab.lines";
// The registry's table of each rows list's listing and hottest-first list, weak-keyed by
// the rows list: {text, hot}.
constexpr const char* kLinesData = "warplab.lines.data";

void set_string(lua_State* L, const char* key, const std::string& v) {
  lua_pushlstring(L, v.data(), v.size());  // +1
  lua_setfield(L, -2, key);                // -1
}

void set_number(lua_State* L, const char* key, double v) {
  if (std::isnan(v)) return;  // not counted: the field is nil
  lua_pushnumber(L, v);       // +1
  lua_setfield(L, -2, key);   // -1
}

void push_row(lua_State* L, const lab::LineRow& r) {
  lua_createtable(L, 0, 24);  // +1 row
  set_string(L, "kernel", r.kernel);
  set_string(L, "file", r.file);
  lua_pushinteger(L, r.line);   // +1
  lua_setfield(L, -2, "line");  // -1
  set_string(L, "text", r.text);
  lua_pushinteger(L, static_cast<lua_Integer>(r.instructions));  // +1
  lua_setfield(L, -2, "instructions");                           // -1
  lua_createtable(L, static_cast<int>(r.kinds.size()), 0);       // +1 kinds
  for (std::size_t i = 0; i < r.kinds.size(); ++i) {
    lua_pushstring(L, r.kinds[i].c_str());                // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setfield(L, -2, "kinds");                               // -1
  lua_createtable(L, static_cast<int>(r.offsets.size()), 0);  // +1 offsets
  for (std::size_t i = 0; i < r.offsets.size(); ++i) {
    lua_pushinteger(L, r.offsets[i]);                     // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setfield(L, -2, "offsets");  // -1
  set_number(L, "inst", r.inst);
  set_number(L, "thread_inst", r.thread_inst);
  set_number(L, "thread_inst_pred_on", r.thread_inst_pred_on);
  set_number(L, "predicated_off", r.predicated_off());
  set_number(L, "shared_wavefronts", r.shared_wavefronts);
  set_number(L, "shared_ideal", r.shared_ideal);
  set_number(L, "shared_way", r.shared_way());
  set_number(L, "global_sectors", r.global_sectors);
  set_number(L, "global_ideal", r.global_ideal);
  set_number(L, "global_excess", r.global_excess());
  set_number(L, "local_sectors", r.local_sectors);
  set_number(L, "divergent_branches", r.divergent_branches);
  set_number(L, "samples", r.samples);
  set_number(L, "share", r.share);
  if (!r.reasons.empty()) {
    lua_createtable(L, static_cast<int>(r.reasons.size()), 0);  // +1 reasons
    for (std::size_t i = 0; i < r.reasons.size(); ++i) {
      lua_createtable(L, 0, 2);  // +1 {name, samples}
      set_string(L, "name", r.reasons[i].first);
      set_number(L, "samples", r.reasons[i].second);
      lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
    }
    lua_setfield(L, -2, "reasons");  // -1
  }
}

// Pushes the {text, hot} entry of the rows list at index 1, or raises.
void push_data(lua_State* L, const char* who) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, LUA_REGISTRYINDEX, kLinesData);  // +1 data
  lua_pushvalue(L, 1);                             // +1 rows
  if (lua_rawget(L, -2) != LUA_TTABLE)             // -1 +1 entry
    raise(L, "%s: expected the rows of cuda.lines or k:lines", who);
  lua_remove(L, -2);  // -1 data
}

// tostring(rows): the listing, rendered once when the rows were made.
static int lines_tostring(lua_State* L) {
  return guard(L, [L] {
    push_data(L, "tostring");     // +1 entry
    lua_getfield(L, -1, "text");  // +1
    return 1;
  });
}

// rows:hot([n = 5]) -> the n hottest rows (the same tables as the list's), hottest first.
static int lines_hot(lua_State* L) {
  return guard(L, [L] {
    const lua_Integer n = luaL_optinteger(L, 2, 5);
    if (n < 0) raise(L, "rows:hot(n): n must be 0 or more, got %I", n);
    push_data(L, "rows:hot");    // +1 entry
    lua_getfield(L, -1, "hot");  // +1 every row, hottest first
    const lua_Integer all = static_cast<lua_Integer>(lua_rawlen(L, -1));
    lua_createtable(L, static_cast<int>(std::min(n, all)), 0);  // +1 list
    for (lua_Integer i = 1; i <= n && i <= all; ++i) {
      lua_rawgeti(L, -2, i);  // +1
      lua_rawseti(L, -2, i);  // -1
    }
    return 1;
  });
}

// The rows of a report: a list of type warplab.lines, with `kernels` ({kernel, launches,
// samples, note}) and `note`.
int push_rows(lua_State* L, const lab::LineReport& r) {
  lua_createtable(L, static_cast<int>(r.rows.size()), 2);  // +1 rows
  const int rows = lua_gettop(L);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    push_row(L, r.rows[i]);                                 // +1
    lua_rawseti(L, rows, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_createtable(L, static_cast<int>(r.kernels.size()), 0);  // +1 kernels
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const lab::LineKernel& k = r.kernels[i];
    lua_createtable(L, 0, 4);  // +1
    set_string(L, "kernel", k.kernel);
    lua_pushinteger(L, static_cast<lua_Integer>(k.launches));  // +1
    lua_setfield(L, -2, "launches");                           // -1
    set_number(L, "samples", k.samples);
    if (!k.map.note.empty()) set_string(L, "note", k.map.note);
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_setfield(L, rows, "kernels");  // -1
  if (!r.note.empty()) set_string(L, "note", r.note);
  // Its listing (plain: it may be written to a file) and its rows hottest first.
  lua_getfield(L, LUA_REGISTRYINDEX, kLinesData);  // +1 data
  lua_pushvalue(L, rows);                          // +1 key
  lua_createtable(L, 0, 2);                        // +1 entry
  const std::string text = lab::lines_text(r, false);
  set_string(L, "text", text);
  const std::vector<std::size_t> hot = lab::hot_lines(r, r.rows.size());
  lua_createtable(L, static_cast<int>(hot.size()), 0);  // +1 hot
  for (std::size_t i = 0; i < hot.size(); ++i) {
    lua_rawgeti(L, rows, static_cast<lua_Integer>(hot[i] + 1));  // +1 the row itself
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));         // -1
  }
  lua_setfield(L, -2, "hot");  // -1
  lua_rawset(L, -3);           // -2: data[rows] = entry
  lua_pop(L, 1);               // -1 data
  luaL_setmetatable(L, kLinesMeta);
  return 1;
}

std::string display_of(const std::string& mangled) {
  const auto sig = rtc::demangle(mangled);
  return sig ? sig->name : mangled;
}

// Why a line collection cannot start in this run now, or nullopt (cuda.lines_available).
std::optional<std::string> lines_unavailable(lab::Run& run) {
  if (run.offline()) return lab::lines_need_gpu() + " (" + run.offline_reason() + ")";
  if (lab::LineSession::active())
    return "this run already collects per-line counts for the whole script (run --lines): a "
           "collection of its own inside it would count nothing apart";
  if (lab::CounterSession::active())
    return "hardware counters are counting (cuda.counters, run --counters), and they would count the "
           "patched code";
  if (auto why = cu::profiler_unavailable()) return why;
  try {
    const cu::ContextPtr& ctx = run.gpu_context("cuda.lines_available");
    (void)cu::cupti_lines();  // a CUPTI older than the per-line calls
    if (auto why = cu::profiler_unsupported(ctx->ordinal(), CUPTI_PROFILER_SASS_METRICS)) return why;
  } catch (const Error& e) {
    return e.what();
  }
  return std::nullopt;
}

// cuda.lines(fn [, columns]) -> rows | cuda.lines(m | k) -> rows (the map alone)
static int cuda_lines(lua_State* L) {
  return guard(L, [L] {
    if (void* p = luaL_testudata(L, 1, kModuleMeta)) {
      const lab::ModuleRef m = *static_cast<lab::ModuleRef*>(p);
      if (!m || m->freed) raise(L, "cuda.lines: attempt to use a freed module");  // m:free() empties it
      if (!m->result.ok) raise(L, "cuda.lines: this module did not compile");
      std::vector<lab::KernelLines> maps;
      for (const std::string& e : m->result.entries) maps.push_back(lab::kernel_lines(*m, e, display_of(e)));
      return push_rows(L, lab::map_report(maps));
    }
    if (void* p = test_udata(L, 1, kKernelMeta))  // a kernel's metatable is its own (kernel.cpp)
      return push_kernel_lines(L, **static_cast<lab::KernelRef*>(p));
    if (lua_type(L, 1) != LUA_TFUNCTION)
      raise(L,
            "cuda.lines: expected a function that launches the kernels (or a module or kernel, for its map), "
            "got %s",
            luaL_typename(L, 1));
    const std::vector<std::string> words =
        lua_isnoneornil(L, 2) ? std::vector<std::string>{} : counter_words(L, 2, "cuda.lines");
    lua_settop(L, 1);
    return push_collected(L, words, "cuda.lines", [L] {
      lua_pushvalue(L, 1);  // +1 fn
      lua_call(L, 0, 0);    // -1: an error in fn passes through, after the session is gone
    });
  });
}

// cuda.lines_available() -> true | false, why (no GPU, no CUPTI or one too old, a device
// CUPTI cannot count on, another NVIDIA tool attached, a collection already running)
static int cuda_lines_available(lua_State* L) {
  return guard(L, [L] {
    const std::optional<std::string> why = lines_unavailable(record_of(L).run);
    lua_pushboolean(L, !why);  // +1
    if (!why) return 1;
    lua_pushstring(L, why->c_str());  // +1
    return 2;
  });
}

}  // namespace

int push_kernel_lines(lua_State* L, const lab::KernelObj& k) {
  return push_rows(L, lab::map_report({lab::kernel_lines(*k.module, k.mangled, k.display)}));
}

int push_collected(lua_State* L, const std::vector<std::string>& words, const char* who,
                   const std::function<void()>& body) {
  lab::LineColumns columns;
  try {
    columns = lab::line_columns(words);
  } catch (const Error& e) {
    raise(L, e.kind(), "%s: %s", who, e.what());
  }
  lab::Run& run = record_of(L).run;
  run.capture.refuse(lab::CaptureOp::counters, who);
  if (run.offline())
    raise(L, ErrorKind::no_gpu, "no CUDA device: %s (%s)", lab::lines_need_gpu().c_str(),
          run.offline_reason().c_str());
  auto collect = [&](const lab::LineColumns& c) {
    auto session = std::make_unique<lab::LineSession>(run.gpu_context(who), c);
    try {
      body();
      lab::synchronize_launched(run);  // behind the watchdog: end() then finds nothing running
      return session->end();
    } catch (const cu::Error&) {
      session->abandon();  // a fault: no more CUPTI or driver calls on this context
      throw;
    } catch (...) {
      if (run.lost()) session->abandon();  // a timeout, or a fault fn turned into its error
      throw;
    }
  };
  if (!columns.twice()) return push_rows(L, collect(columns));
  // Counts and stalls: body twice, counted then sampled (lines.hpp).
  lab::LineReport report = collect(columns.counts_only());
  lab::merge_stalls(report, collect(lab::LineColumns::stalls_only()));
  return push_rows(L, report);
}

void add_lines(lua_State* L) {
  const luaL_Reg meta[] = {{"__tostring", lines_tostring}, {nullptr, nullptr}};
  const luaL_Reg methods[] = {{"hot", lines_hot}, {nullptr, nullptr}};
  register_type(L, {.name = kLinesMeta, .meta = meta, .methods = methods});
  lua_createtable(L, 0, 0);                        // +1 data
  lua_createtable(L, 0, 1);                        // +1 its metatable
  lua_pushliteral(L, "k");                         // +1
  lua_setfield(L, -2, "__mode");                   // -1
  lua_setmetatable(L, -2);                         // -1
  lua_setfield(L, LUA_REGISTRYINDEX, kLinesData);  // -1
  const luaL_Reg fns[] = {
      {"lines", cuda_lines}, {"lines_available", cuda_lines_available}, {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into the cuda table on top
}

}  // namespace warplab::bind
