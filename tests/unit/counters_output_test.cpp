// counters_output_test.cpp: what the front ends show of hardware counters, on made-up
// reports (no GPU, no CUPTI): the rows of one kernel combined (counts summed, ratios of
// counts recomputed from the sums, rates averaged), the table (identical consecutive
// launches shown once, NaN as "-", the note), the JSON `run --json` writes, what `watch
// --counters` prints after each run (all, then changes old -> new), and how the REPL's
// :counters tells its counter names from the chunk.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/repl/counters.hpp"
#include "app/watch/counters.hpp"
#include "lab/counter_report.hpp"

namespace lab = warplab::lab;

namespace {

// conflicts (a count), requests (a count), their ratio, and a rate.
lab::CounterReport report() {
  lab::CounterReport r;
  r.selection.chip = "GH100";
  r.selection.passes = 1;
  r.selection.collect = {"c.sum", "q.sum", "rate.pct"};
  r.selection.counters = {
      {"conflicts", "shared", "conflicts", "bank conflicts", "c.sum", ""},
      {"conflicts_per_request", "shared", "conflicts/request", "per request", "c.sum", "q.sum"},
      {"rate", "", "%", "a rate", "rate.pct", ""}};
  auto row = [](std::string k, unsigned grid, double c, double q, double rate) {
    lab::CounterRow w;
    w.kernel = std::move(k);
    w.site = "x.lua:3";
    w.grid = {grid, 1, 1};
    w.block = {32, 1, 1};
    w.collected = {c, q, rate};
    w.values = {c, q == 0 ? std::nan("") : c / q, rate};
    return w;
  };
  r.rows = {row("a", 1, 31, 1, 10), row("a", 1, 31, 1, 10), row("b", 2, 0, 0, 50), row("a", 4, 0, 3, 40)};
  return r;
}

}  // namespace

TEST(CountersOutput, ByKernelSumsCountsRecomputesRatiosAveragesRates) {
  const lab::CounterReport k = lab::by_kernel(report());
  ASSERT_EQ(k.rows.size(), 2u);
  const lab::CounterRow& a = k.rows[0];
  EXPECT_EQ(a.kernel, "a");
  EXPECT_EQ(a.launches, 3u);
  EXPECT_EQ(a.values[0], 62.0);      // 31 + 31 + 0
  EXPECT_EQ(a.values[1], 62.0 / 5);  // all conflicts over all requests, not the mean of 31, 31, 0
  EXPECT_EQ(a.values[2], 20.0);      // (10 + 10 + 40) / 3
  EXPECT_EQ(a.grid.x, 0u);           // the launches differed
  EXPECT_EQ(a.block.x, 32u);         // they did not
  EXPECT_EQ(k.rows[1].kernel, "b");
  EXPECT_TRUE(std::isnan(k.rows[1].values[1]));  // no request counted
  const std::string text = lab::counters_text(k, true);
  EXPECT_NE(text.find("4 launches of 2 kernels"), std::string::npos) << text;
  EXPECT_NE(text.find("a  3 launches  grid (varied)  block 32  x.lua:3"), std::string::npos) << text;
}

TEST(CountersOutput, TableShowsIdenticalLaunchesOnce) {
  const std::string text = lab::counters_text(report());
  const std::string want =
      "hardware counters: shared and 1 CUPTI metric on GH100, 1 replay pass per launch, 4 launches\n"
      "#1-#2 a  grid 1  block 32  x.lua:3  (2 launches, the same counts)\n"
      "    conflicts              31  conflicts\n"
      "    conflicts_per_request  31  conflicts/request\n"
      "    rate                   10  %\n"
      "#3 b  grid 2  block 32  x.lua:3\n"
      "    conflicts               0  conflicts\n"
      "    conflicts_per_request   -  conflicts/request\n"
      "    rate                   50  %\n"
      "#4 a  grid 4  block 32  x.lua:3\n"
      "    conflicts               0  conflicts\n"
      "    conflicts_per_request   0  conflicts/request\n"
      "    rate                   40  %\n";
  EXPECT_EQ(text, want);
  lab::CounterReport none = report();
  none.rows.clear();
  none.note = "2 launches were not counted";
  EXPECT_NE(lab::counters_text(none).find("(no kernel was launched)\nnote: 2 launches were not counted\n"),
            std::string::npos);
}

TEST(CountersOutput, ValuesAsTheTableWritesThem) {
  EXPECT_EQ(lab::counter_value_text(31.0), "31");
  EXPECT_EQ(lab::counter_value_text(12.4), "12.40");
  EXPECT_EQ(lab::counter_value_text(0.0123), "0.0123");
  EXPECT_EQ(lab::counter_value_text(1073741824.0), "1073741824");
  EXPECT_EQ(lab::counter_value_text(std::nan("")), "-");
}

TEST(CountersOutput, JsonHasEveryRowAndNullForNaN) {
  const nlohmann::json j = lab::counters_json(report());
  EXPECT_EQ(j["chip"], "GH100");
  EXPECT_EQ(j["by"], "launch");
  EXPECT_EQ(j["counters"].size(), 3u);
  EXPECT_EQ(j["counters"][1]["per"], "q.sum");
  EXPECT_TRUE(j["counters"][0]["per"].is_null());
  ASSERT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["rows"][2]["grid"], nlohmann::json::array({2, 1, 1}));
  EXPECT_TRUE(j["rows"][2]["values"]["conflicts_per_request"].is_null());
  EXPECT_EQ(j["rows"][0]["values"]["conflicts"], 31.0);
  EXPECT_TRUE(j["note"].is_null());
  EXPECT_EQ(lab::counters_json(lab::by_kernel(report()), true)["by"], "kernel");
}

TEST(CountersOutput, WatchShowsAllThenWhatChanged) {
  warplab::app::watch::CounterDiff d("/nonexistent/counters.json");
  EXPECT_EQ(d.collect(), "");  // the run wrote nothing
  auto run = [](double conflicts, double rate, bool with_b) {
    lab::CounterReport r = report();
    r.rows.resize(with_b ? 3 : 2);
    r.rows[0].collected = {conflicts, 1, rate};
    r.rows[0].values = {conflicts, conflicts, rate};
    return lab::counters_json(lab::by_kernel(r), true).dump();
  };
  EXPECT_EQ(d.compare(run(31, 10, true)),
            "counters:\n"
            "  a  conflicts  62 conflicts\n"
            "  a  conflicts_per_request  31 conflicts/request\n"
            "  a  rate  10 %\n"
            "  b  conflicts  0 conflicts\n"
            "  b  conflicts_per_request  - conflicts/request\n"
            "  b  rate  50 %\n");
  // 10 -> 10.05 is noise (under 1 %); 31 -> 0 is the edit's effect.
  EXPECT_EQ(d.compare(run(0, 10.05, true)),
            "counters changed:\n"
            "  a  conflicts  62 -> 31 conflicts\n"
            "  a  conflicts_per_request  31 -> 15.50 conflicts/request\n");
  EXPECT_EQ(d.compare(run(0, 10, true)), "counters: no change\n");
  EXPECT_EQ(d.compare(run(0, 10, false)), "counters changed:\n  b: no longer launched\n");
  EXPECT_EQ(d.compare("not json"), "counters: unreadable (/nonexistent/counters.json)\n");
}

TEST(CountersOutput, ReplTellsNamesFromTheChunk) {
  using warplab::app::repl::counted_chunk;
  auto c = counted_chunk("shared,memory k:launch(1, 32, a)");
  EXPECT_EQ(c.sets, "shared,memory");
  EXPECT_EQ(c.chunk, "k:launch(1, 32, a)");
  // The chunk compiled on its own under the REPL's name: its errors cite repl:1 and its own words.
  const std::string load =
      "(function(s) local f, e = load(s, \"=repl\", \"t\") if not f then error(e, 0) end return f end)";
  EXPECT_EQ(c.lua, "return cuda.counters(" + load + "([[\nk:launch(1, 32, a)]]), \"shared,memory\")");
  // A chunk holding "]]" gets brackets of a level it does not hold.
  EXPECT_EQ(counted_chunk("shared x = t[a[1]]").lua,
            "return cuda.counters(" + load + "([=[\nx = t[a[1]]]=]), \"shared\")");
  c = counted_chunk("k:launch(1, 32, a)");  // no names: the default sets
  EXPECT_EQ(c.sets, warplab::app::repl::kDefaultCounters);
  EXPECT_EQ(c.chunk, "k:launch(1, 32, a)");
  c = counted_chunk("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum f()");
  EXPECT_EQ(c.sets, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
  EXPECT_EQ(c.chunk, "f()");
  c = counted_chunk("sahred f()");  // a misspelling is still the names: cuda.counters says "did you mean"
  EXPECT_EQ(c.sets, "sahred");
  // `local` is a set's name: in a chunk of its own a local variable would be lost anyway.
  EXPECT_EQ(counted_chunk("local y = f()").sets, "local");
  for (const char* lua : {"x = 1", "print (x)", "do f() end", "for i = 1, 2 do f() end", "f \"s\""}) {
    c = counted_chunk(lua);
    EXPECT_EQ(c.chunk, lua);
    EXPECT_EQ(c.sets, warplab::app::repl::kDefaultCounters) << lua;
  }
  EXPECT_EQ(counted_chunk("shared").chunk, "");  // names and no chunk
  EXPECT_EQ(counted_chunk("  ").chunk, "");
}
