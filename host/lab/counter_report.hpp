// counter_report.hpp: what a front end shows of a CounterReport, without Lua: the rows of
// one kernel combined (by_kernel), the text that `run --counters`, the REPL and a report's
// tostring print, and the JSON `run --json` writes and `watch --counters` reads back.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "lab/counters.hpp"

namespace warplab::lab {

// Each row's kernel as a table names it: its name, unless another kernel of the report
// bears it too (overloads, one name in two modules): then its signature for overloads
// ("f(int*)"), and its module where that alone tells them apart ("k in b.cu", or
// "f(int*) in b.cu" among overloads) (CounterRow::module). "" stays "".
std::vector<std::string> kernel_labels(const std::vector<CounterRow>& rows);

// One row per kernel (its name, signature and module; the row's kernel is its label
// above), in the order each was first launched: counts (CUPTI metrics with the .sum
// rollup) summed over its launches, a ratio of two counts recomputed from the sums
// (sectors/request over every request), a share of a count (Counter::of: branch
// efficiency) weighed by that count over the launches that counted it (NaN when none
// did), any other metric (a rate, a percentage) averaged.
// grid and block are the first launch's, zero where the launches differed; launches says
// how many rows became one. Rows with no kernel name combine as one.
CounterReport by_kernel(const CounterReport& r);

// A value as the tables and watch's changes show it (the one formatter of counter values):
// whole numbers as integers, others with 2 decimals (3 significant digits below 1), from
// 1e15 on 4 significant digits ("1e+308", never 300 digits), NaN (a ratio over nothing
// counted) as "-", infinities as "inf" and "-inf".
std::string counter_value_text(double v);

// The table: a heading (the sets, the chip, the replay passes, how many launches), then
// for each row a line naming it (#N kernel grid block site, or the kernel and its launch
// count for a by_kernel report) and one line per counter: short name, value, unit.
// Consecutive launch rows of one kernel, configuration and line with identical values are
// shown once ("#3-#7 ... (5 launches, the same counts)"). Then the note, if any.
std::string counters_text(const CounterReport& r, bool by_kernel_rows = false);

// {"chip", "passes", "by": "launch" | "kernel", "counters": [{name, set, unit, meaning,
// raw, per, of}], "rows": [{kernel, site, grid: [x, y, z], block: [...], launches, values:
// {name: number | null}}], "unavailable": [...], "note"} (docs/cli.md).
nlohmann::json counters_json(const CounterReport& r, bool by_kernel_rows = false);

}  // namespace warplab::lab
