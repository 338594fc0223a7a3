// counters.cpp: hardware counters from Lua: cuda.counters(fn, names) (the rows of the
// launches fn makes), cuda.counter_sets() (the named sets, their short names, units and
// meanings), cuda.counters_available(), and what k:counters (kernel.cpp) shares with them:
// the names read, a counter session around a body, the rows pushed. The sets, sessions and
// the table text are lab's (lab/counters.hpp, lab/counter_report.hpp).
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bind/cuda.hpp"
#include "bind/guard.hpp"
#include "bind/record.hpp"
#include "cu/cupti.hpp"
#include "cu/range_profiler.hpp"
#include "lab/counter_report.hpp"
#include "lab/counters.hpp"
#include "lab/lines.hpp"
#include "lab/sync.hpp"
#include "sys/text.hpp"

namespace warplab::bind {
namespace {

void set_string(lua_State* L, const char* key, const std::string& v) {
  lua_pushlstring(L, v.data(), v.size());  // +1
  lua_setfield(L, -2, key);                // -1
}

void push_dim(lua_State* L, const cu::Dim3& d) {
  lua_createtable(L, 3, 0);  // +1 {x, y, z}
  const unsigned v[3] = {d.x, d.y, d.z};
  for (int i = 0; i < 3; ++i) {
    lua_pushinteger(L, v[i]);   // +1
    lua_rawseti(L, -2, i + 1);  // -1
  }
}

// Gives the table on top a metatable whose __tostring returns `text` (the table lab
// renders once, as run --counters prints it).
void set_tostring(lua_State* L, const std::string& text) {
  lua_createtable(L, 0, 1);                      // +1 meta
  lua_pushlstring(L, text.data(), text.size());  // +1
  lua_pushcclosure(
      L,
      [](lua_State* S) -> int {
        lua_pushvalue(S, lua_upvalueindex(1));  // +1 the text
        return 1;
      },
      1);                             // -1 +1 __tostring
  lua_setfield(L, -2, "__tostring");  // -1
  lua_setmetatable(L, -2);            // -1 meta
}

// One row: kernel, site, grid, block, each counter by its name (NaN: a ratio over a count
// of 0), and `units` (the table at units_idx).
void push_row(lua_State* L, const lab::CounterReport& r, const lab::CounterRow& row, int units_idx) {
  lua_createtable(L, 0, static_cast<int>(row.values.size()) + 5);  // +1 row
  set_string(L, "kernel", row.kernel);
  if (!row.site.empty()) set_string(L, "site", row.site);
  push_dim(L, row.grid);         // +1
  lua_setfield(L, -2, "grid");   // -1
  push_dim(L, row.block);        // +1
  lua_setfield(L, -2, "block");  // -1
  lua_pushvalue(L, units_idx);   // +1
  lua_setfield(L, -2, "units");  // -1
  for (std::size_t c = 0; c < r.selection.counters.size() && c < row.values.size(); ++c) {
    lua_pushnumber(L, row.values[c]);                           // +1
    lua_setfield(L, -2, r.selection.counters[c].name.c_str());  // -1
  }
}

// The rows of a report: a list of rows, with `counters` (the names in order), `units`,
// `meanings`, `chip`, `passes` and `note`; tostring gives the table.
void push_rows(lua_State* L, const lab::CounterReport& r) {
  const auto& counters = r.selection.counters;
  lua_createtable(L, static_cast<int>(r.rows.size()), 6);  // +1 rows
  const int rows = lua_gettop(L);
  lua_createtable(L, 0, static_cast<int>(counters.size()));  // +1 units
  const int units = lua_gettop(L);
  lua_createtable(L, static_cast<int>(counters.size()), 0);  // +1 names
  lua_createtable(L, 0, static_cast<int>(counters.size()));  // +1 meanings
  for (std::size_t c = 0; c < counters.size(); ++c) {
    set_string(L, counters[c].name.c_str(), counters[c].meaning);  // into meanings
    lua_pushstring(L, counters[c].name.c_str());                   // +1
    lua_rawseti(L, -3, static_cast<lua_Integer>(c + 1));           // -1 into names
    lua_pushstring(L, counters[c].unit.c_str());                   // +1
    lua_setfield(L, units, counters[c].name.c_str());              // -1 into units
  }
  lua_setfield(L, rows, "meanings");  // -1
  lua_setfield(L, rows, "counters");  // -1
  lua_setfield(L, rows, "units");     // -1
  set_string(L, "chip", r.selection.chip);
  lua_pushinteger(L, static_cast<lua_Integer>(r.selection.passes));  // +1
  lua_setfield(L, -2, "passes");                                     // -1
  if (!r.note.empty()) set_string(L, "note", r.note);
  lua_getfield(L, rows, "units");  // +1 units again, for each row
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    push_row(L, r, r.rows[i], lua_gettop(L));               // +1
    lua_rawseti(L, rows, static_cast<lua_Integer>(i + 1));  // -1
  }
  lua_pop(L, 1);  // -1 units
  set_tostring(L, lab::counters_text(r));
}

// ---- cuda.counters, cuda.counter_sets, cuda.counters_available ---------------------------

// cuda.counters(fn, {"shared", ...} | "shared,memory") -> rows
static int cuda_counters(lua_State* L) {
  return guard(L, [&] {
    if (lua_type(L, 1) != LUA_TFUNCTION)
      raise(L, "cuda.counters: expected a function that launches the kernels to count, got %s",
            luaL_typename(L, 1));
    const std::vector<std::string> words = counter_words(L, 2, "cuda.counters");
    lua_settop(L, 2);
    return push_counted(
        L, words, "cuda.counters",
        [L] {
          lua_pushvalue(L, 1);  // +1 fn
          lua_call(L, 0, 0);    // -1: an error in fn passes through, after the session is gone
        },
        false);
  });
}

// cuda.counter_sets() -> {{name, meaning, metrics = {{name, unit, meaning, raw, per, of}...}}...}
static int cuda_counter_sets(lua_State* L) {
  const auto& sets = lab::counter_sets();
  lua_createtable(L, static_cast<int>(sets.size()), 0);  // +1 list
  for (std::size_t i = 0; i < sets.size(); ++i) {
    lua_createtable(L, 0, 3);  // +1 set
    set_string(L, "name", std::string(sets[i].name));
    set_string(L, "meaning", std::string(sets[i].meaning));
    lua_createtable(L, static_cast<int>(sets[i].metrics.size()), 0);  // +1 metrics
    for (std::size_t m = 0; m < sets[i].metrics.size(); ++m) {
      const lab::CounterDef& d = sets[i].metrics[m];
      lua_createtable(L, 0, 6);  // +1 metric
      set_string(L, "name", std::string(d.name));
      set_string(L, "unit", std::string(d.unit));
      set_string(L, "meaning", std::string(d.meaning));
      set_string(L, "raw", std::string(d.raw));
      if (!d.per.empty()) set_string(L, "per", std::string(d.per));
      if (!d.of.empty()) set_string(L, "of", std::string(d.of));
      lua_rawseti(L, -2, static_cast<lua_Integer>(m + 1));  // -1
    }
    lua_setfield(L, -2, "metrics");                       // -1
    lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));  // -1
  }
  return 1;
}

// cuda.counters_available() -> true | false, why (no GPU, no CUPTI, per-line counts being
// collected, another NVIDIA tool attached)
static int cuda_counters_available(lua_State* L) {
  lab::Run& run = record_of(L).run;
  std::optional<std::string> why;
  if (run.offline())
    why = lab::counters_need_gpu() + " (" + run.offline_reason() + ")";
  else if (lab::LineSession::active())
    why = lab::kCountersBesideLines;
  else
    why = cu::profiler_unavailable();
  lua_pushboolean(L, !why);  // +1
  if (!why) return 1;
  lua_pushstring(L, why->c_str());  // +1
  return 2;
}

}  // namespace

std::vector<std::string> counter_words(lua_State* L, int idx, const char* who) {
  std::vector<std::string> words;
  auto add = [&](const char* s, std::size_t n) {  // "shared, memory": split at commas, trimmed
    for (const std::string& piece : sys::split(std::string_view(s, n), ','))
      if (std::string w = sys::trim(piece); !w.empty()) words.push_back(std::move(w));
  };
  if (lua_type(L, idx) == LUA_TSTRING) {
    std::size_t n = 0;
    const char* s = lua_tolstring(L, idx, &n);
    add(s, n);
  } else if (lua_type(L, idx) == LUA_TTABLE) {
    const lua_Integer n = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= n; ++i) {
      if (lua_geti(L, idx, i) != LUA_TSTRING)  // +1
        raise(L, "%s: counter name %d must be a string, got %s", who, static_cast<int>(i),
              luaL_typename(L, -1));
      std::size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      add(s, len);
      lua_pop(L, 1);  // -1
    }
  } else {
    raise(L,
          "%s: expected the counters to count, as a list of set or metric names ({\"shared\", \"memory\"}) "
          "or one string (\"shared,memory\"), got %s",
          who, luaL_typename(L, idx));
  }
  return words;
}

int push_counted(lua_State* L, const std::vector<std::string>& words, const char* who,
                 const std::function<void()>& body, bool one_row) {
  lab::Run& run = record_of(L).run;
  const std::unique_ptr<lab::CounterSession> session = lab::start_counting(run, words, who);
  lab::CounterReport report;
  try {
    body();
    lab::synchronize_launched(run);  // behind the watchdog: end() then finds nothing running
    report = session->end();
  } catch (const cu::Error&) {
    session->abandon();  // a fault: no more CUPTI or driver calls on this context
    throw;
  } catch (...) {
    if (run.lost()) session->abandon();  // a timeout, or a fault fn turned into its error
    throw;                               // otherwise the session stops as it goes
  }
  if (!one_row) {
    push_rows(L, report);  // +1
    return 1;
  }
  if (report.rows.size() != 1)
    raise(L, "%s: the GPU counted %d launches for this one%s%s", who, static_cast<int>(report.rows.size()),
          report.note.empty() ? "" : ": ", report.note.c_str());
  lua_createtable(L, 0, static_cast<int>(report.selection.counters.size()));  // +1 units
  for (const auto& c : report.selection.counters) {
    lua_pushstring(L, c.unit.c_str());    // +1
    lua_setfield(L, -2, c.name.c_str());  // -1
  }
  push_row(L, report, report.rows[0], lua_gettop(L));  // +1 row
  lua_remove(L, -2);                                   // -1 units
  set_tostring(L, lab::counters_text(report));
  return 1;
}

void add_counters(lua_State* L) {
  const luaL_Reg fns[] = {{"counters", cuda_counters},
                          {"counter_sets", cuda_counter_sets},
                          {"counters_available", cuda_counters_available},
                          {nullptr, nullptr}};
  luaL_setfuncs(L, fns, 0);  // into the cuda table on top
}

}  // namespace warplab::bind
