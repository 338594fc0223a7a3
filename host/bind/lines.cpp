// lines.cpp: per-line counts from Lua: cuda.lines(fn [, columns]) (the rows of every kernel
// fn launched: what each source line did) and cuda.lines(m | k) (the map alone, no GPU:
// which lines made which instructions, of what kind). The rows are a list whose tostring is
// the annotated listing and whose :hot(n) gives the n hottest. The session, the map and
// the listing are lab's (lab/lines.hpp, lab/line_map.hpp).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "bind/udata.hpp"
#include "lab/capture.hpp"
#include "lab/lines.hpp"
#include "lab/sync.hpp"
#include "rtc/signature.hpp"

namespace warplab::bind {
namespace {

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

// rows:hot(n) -> the n hottest rows (upvalue 1: every row, hottest first).
int rows_hot(lua_State* L) {
  return guard(L, [L] {
    const lua_Integer n = luaL_optinteger(L, 2, 5);
    if (n < 0) raise(L, "rows:hot(n): n must be 0 or more, got %I", n);
    const lua_Integer all = luaL_len(L, lua_upvalueindex(1));
    lua_createtable(L, static_cast<int>(std::min(n, all)), 0);  // +1 list
    for (lua_Integer i = 1; i <= n && i <= all; ++i) {
      lua_rawgeti(L, lua_upvalueindex(1), i);  // +1
      lua_rawseti(L, -2, i);                   // -1
    }
    return 1;
  });
}

// The rows of a report: a list, with `kernels` ({kernel, launches, samples, note}) and
// `note`; tostring gives the listing, :hot(n) the hottest rows.
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
  // The metatable: __tostring (the listing, rendered once) and __index.hot.
  lua_createtable(L, 0, 2);                            // +1 meta
  const std::string text = lab::lines_text(r, false);  // plain: it may be written to a file
  lua_pushlstring(L, text.data(), text.size());        // +1
  lua_pushcclosure(
      L,
      [](lua_State* S) -> int {
        lua_pushvalue(S, lua_upvalueindex(1));  // +1 the text
        return 1;
      },
      1);                             // -1 +1 __tostring
  lua_setfield(L, -2, "__tostring");  // -1
  lua_createtable(L, 0, 1);           // +1 __index
  const std::vector<lab::LineRow> hot = lab::hot_lines(r, r.rows.size());
  lua_createtable(L, static_cast<int>(hot.size()), 0);  // +1 every row, hottest first
  for (std::size_t i = 0; i < hot.size(); ++i) {
    push_row(L, hot[i]);                                  // +1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_pushcclosure(L, rows_hot, 1);  // -1 +1
  lua_setfield(L, -2, "hot");        // -1
  lua_setfield(L, -2, "__index");    // -1
  lua_setmetatable(L, rows);         // -1 meta
  return 1;
}

std::string display_of(const std::string& mangled) {
  const auto sig = rtc::demangle(mangled);
  return sig ? sig->name : mangled;
}

// The columns of cuda.lines' second argument: "shared,global", {"stalls"}, or nil (counts).
lab::LineColumns columns_of(lua_State* L, int idx) {
  if (lua_isnoneornil(L, idx)) return {};
  try {
    return lab::line_columns(counter_words(L, idx, "cuda.lines"));
  } catch (const lab::Error& e) {
    raise(L, "cuda.lines: %s", e.what());
  }
}

// cuda.lines(fn [, columns]) -> rows | cuda.lines(m | k) -> rows (the map alone)
static int cuda_lines(lua_State* L) {
  return guard(L, [L] {
    if (void* p = luaL_testudata(L, 1, kModuleMeta)) {
      const lab::ModuleRef m = *static_cast<lab::ModuleRef*>(p);
      if (!m->result.ok) raise(L, "cuda.lines: this module did not compile");
      std::vector<lab::KernelLines> maps;
      for (const std::string& e : m->result.entries) maps.push_back(lab::kernel_lines(*m, e, display_of(e)));
      return push_rows(L, lab::map_report(maps));
    }
    if (void* p = luaL_testudata(L, 1, kKernelMeta)) {
      const lab::KernelRef k = *static_cast<lab::KernelRef*>(p);
      return push_rows(L, lab::map_report({lab::kernel_lines(*k->module, k->mangled, k->display)}));
    }
    if (lua_type(L, 1) != LUA_TFUNCTION)
      raise(L,
            "cuda.lines: expected a function that launches the kernels (or a module or kernel, for its map), "
            "got %s",
            luaL_typename(L, 1));
    const lab::LineColumns columns = columns_of(L, 2);
    lua_settop(L, 1);
    lab::Run& run = record_of(L).run;
    run.capture.refuse(lab::CaptureOp::counters, "cuda.lines");
    if (run.offline())
      raise(L, "%s%s (%s)", lab::kNoGpu, lab::lines_need_gpu().c_str(), run.offline_reason().c_str());
    auto session = std::make_unique<lab::LineSession>(run.gpu_context("cuda.lines"), columns);
    lab::LineReport report;
    try {
      lua_pushvalue(L, 1);  // +1 fn
      lua_call(L, 0, 0);    // -1: an error in fn passes through, after the session is gone
      lab::synchronize_launched(run);
      report = session->end();
    } catch (const cu::Error&) {
      session->abandon();  // a fault: no more CUPTI or driver calls on this context
      throw;
    } catch (...) {
      if (run.lost()) session->abandon();
      throw;
    }
    return push_rows(L, report);
  });
}

}  // namespace

void add_lines(lua_State* L) {
  lua_pushcfunction(L, cuda_lines);  // +1
  lua_setfield(L, -2, "lines");      // -1 into the cuda table on top
}

}  // namespace warplab::bind
