// counters_output_test.cpp: what the front ends show of hardware counters, on made-up
// reports (no GPU, no CUPTI): the rows of one kernel combined (counts summed, ratios of
// counts recomputed from the sums, rates averaged), the table (identical consecutive
// launches shown once, NaN as "-", the note), a share of a count of 0 (branch_efficiency
// without branches) as no value, the JSON `run --json` writes, what `watch
// --counters` prints after each run (all, then changes old -> new), and how the REPL's
// :counters tells its counter names from the chunk.
#include <gtest/gtest.h>
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "app/repl/counters.hpp"
#include "app/watch/counters.hpp"
#include "lab/counter_report.hpp"
#include "lab/module.hpp"
#include "rtc/signature.hpp"

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
  // Past what a count reaches: 4 significant digits, never an integer of 300 digits.
  EXPECT_EQ(lab::counter_value_text(1e308), "1e+308");
  EXPECT_EQ(lab::counter_value_text(-1.5e300), "-1.5e+300");
  EXPECT_EQ(lab::counter_value_text(123456789012345.0), "123456789012345");
  EXPECT_EQ(lab::counter_value_text(1e15), "1e+15");
  EXPECT_EQ(lab::counter_value_text(2.5e20), "2.5e+20");
  EXPECT_EQ(lab::counter_value_text(std::numeric_limits<double>::max()), "1.798e+308");
  EXPECT_EQ(lab::counter_value_text(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(lab::counter_value_text(1e-300), "1e-300");
}

// A run of 20 digits or more anywhere in `text`.
bool has_long_number(const std::string& text) {
  std::size_t run = 0;
  for (char c : text) {
    run = std::isdigit(static_cast<unsigned char>(c)) ? run + 1 : 0;
    if (run >= 20) return true;
  }
  return false;
}

TEST(CountersOutput, HugeValuesInTheTableTheJsonAndWatch) {
  lab::CounterReport r = report();
  r.rows[0].values = {1e308, -1e308, 1.7976931348623157e308};
  r.rows[0].collected = {1e308, 1, 1e308};
  const std::string table = lab::counters_text(r);
  EXPECT_FALSE(has_long_number(table)) << table;
  EXPECT_NE(table.find("    conflicts                  1e+308  conflicts\n"), std::string::npos) << table;
  const std::string by_kernel = lab::counters_text(lab::by_kernel(r), true);
  EXPECT_FALSE(has_long_number(by_kernel)) << by_kernel;
  const std::string json = lab::counters_json(r).dump();
  EXPECT_FALSE(has_long_number(json)) << json;
  warplab::app::watch::CounterDiff d("/nonexistent/counters.json");
  const std::string first = d.compare(lab::counters_json(lab::by_kernel(report()), true).dump());
  const std::string diff = d.compare(lab::counters_json(lab::by_kernel(r), true).dump());
  EXPECT_FALSE(has_long_number(diff)) << diff;
  EXPECT_NE(diff.find("  a  rate  20 -> 3.333e+307 %\n"), std::string::npos) << diff;
}

// Overloads, and one name in two modules, are different kernels: by_kernel keeps them
// apart, and every table names each so that it can be told from the others.
TEST(CountersOutput, KernelsThatShareANameAreKeptApart) {
  lab::CounterReport r = report();
  auto launch = [&](std::string kernel, std::string signature, std::string module, double c) {
    lab::CounterRow w = r.rows[0];
    w.kernel = std::move(kernel);
    w.signature = std::move(signature);
    w.module = std::move(module);
    w.collected = {c, 1, 10};
    w.values = {c, c, 10};
    return w;
  };
  r.rows = {launch("f", "f(int*)", "a.cu", 1),
            launch("f", "f(float*)", "a.cu", 2),
            launch("k", "k", "a.cu", 4),
            launch("k", "k", "b.cu", 8),
            launch("f", "f(int*)", "a.cu", 16),
            launch("g", "g(int)", "x.lua:12 -DN=1", 32),
            launch("g", "g(int)", "x.lua:12 -DN=2", 64),
            launch("h", "h", "a.cu", 128)};
  EXPECT_EQ(lab::kernel_labels(r.rows),
            (std::vector<std::string>{"f(int*)", "f(float*)", "k in a.cu", "k in b.cu", "f(int*)",
                                      "g in x.lua:12 -DN=1", "g in x.lua:12 -DN=2", "h"}));
  const lab::CounterReport k = lab::by_kernel(r);
  ASSERT_EQ(k.rows.size(), 7u);
  std::vector<std::string> names;
  std::vector<double> conflicts;
  for (const auto& row : k.rows) {
    names.push_back(row.kernel);
    conflicts.push_back(row.values[0]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"f(int*)", "f(float*)", "k in a.cu", "k in b.cu",
                                             "g in x.lua:12 -DN=1", "g in x.lua:12 -DN=2", "h"}));
  EXPECT_EQ(conflicts, (std::vector<double>{17, 2, 4, 8, 32, 64, 128}));  // only f(int*) twice
  const std::string text = lab::counters_text(k, true);
  EXPECT_NE(text.find("8 launches of 7 kernels"), std::string::npos) << text;
  EXPECT_NE(text.find("\nk in b.cu  1 launch  grid 1"), std::string::npos) << text;
  // Per launch too: #3 and #4 are two kernels, never "the same counts".
  const std::string launches = lab::counters_text(r);
  EXPECT_NE(launches.find("\n#3 k in a.cu  grid 1"), std::string::npos) << launches;
  EXPECT_NE(launches.find("\n#4 k in b.cu  grid 1"), std::string::npos) << launches;
  const nlohmann::json j = lab::counters_json(k, true);
  EXPECT_EQ(j["rows"][3]["kernel"], "k in b.cu");
  EXPECT_EQ(j["rows"][3]["signature"], "k");
  EXPECT_EQ(j["rows"][3]["module"], "b.cu");
  // watch compares each apart.
  warplab::app::watch::CounterDiff d("/nonexistent/counters.json");
  const std::string shown = d.compare(j.dump());
  EXPECT_NE(shown.find("  k in a.cu  conflicts  4 conflicts\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("  k in b.cu  conflicts  8 conflicts\n"), std::string::npos) << shown;
}

// What a counted launch records of its kernel: name, signature, and where its module came
// from (a file; an inline source's script line; the defines).
TEST(CountersOutput, ACountedLaunchNamesItsKernelWhole) {
  lab::KernelObj k;
  k.mangled = "_Z1fPi";
  k.sig = warplab::rtc::demangle(k.mangled);
  ASSERT_TRUE(k.sig);
  k.display = k.sig->name;
  k.module = std::make_shared<lab::ModuleObj>();
  k.module->spec.source.name = "x.lua";
  k.module->spec.source.line_offset = 11;
  k.module->spec.options.defines = {{"N", "256"}, {"FAST", ""}};
  lab::CountedKernel c = lab::counted_kernel(k);
  EXPECT_EQ(c.kernel, "f");
  EXPECT_EQ(c.signature, "f(int*)");
  EXPECT_EQ(c.module, "x.lua:12 -DN=256 -DFAST=");
  lab::KernelObj plain;  // extern "C", from a file
  plain.mangled = plain.display = "saxpy";
  plain.module = std::make_shared<lab::ModuleObj>();
  plain.module->spec.source.name = plain.module->spec.path = "kernels/saxpy.cu";
  c = lab::counted_kernel(plain);
  EXPECT_EQ(c.signature, "saxpy");
  EXPECT_EQ(c.module, "kernels/saxpy.cu");
}

// cuda.counters and k:counters count up to 1,024 launches a call, `run --counters` up to
// 4,096 a script: the docs say the numbers of the code.
TEST(CountersOutput, TheDocsSayTheLaunchLimitsOfTheCode) {
  auto read = [](const std::string& rel) {
    std::ifstream in(std::string(WARPLAB_SOURCE_DIR) + "/" + rel);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(lab::CounterSession::kDefaultMaxLaunches, 1024u);
  EXPECT_EQ(lab::CounterSession::kScriptMaxLaunches, 4096u);
  const std::string api = read("docs/lua-api.md"), cli = read("docs/cli.md");
  EXPECT_NE(api.find("over 1,024 in one call"), std::string::npos);
  EXPECT_NE(api.find("`run --counters`: over 4,096 in the script"), std::string::npos);
  EXPECT_NE(cli.find("counts up to 4,096 launches"), std::string::npos);
  EXPECT_NE(cli.find("`cuda.counters` up to 1,024 a call"), std::string::npos);
}

// A share of a count (branch_efficiency: a percentage of the branch targets) over a
// launch that counted none is no value: "-" in the table, null in the JSON, NaN in Lua,
// where CUPTI says 0 %. A kernel's launches combine weighed by that count.
lab::CounterSelection branch_selection() {
  lab::CounterSelection sel;
  sel.chip = "GH100";
  sel.passes = 2;
  sel.collect = {"uniform.pct", "targets.sum", "inst.sum"};
  sel.counters = {{"branch_efficiency", "warps", "%", "uniform targets", "uniform.pct", "", "targets.sum"},
                  {"per_inst", "", "targets/inst", "a ratio", "targets.sum", "inst.sum"}};
  return sel;
}

TEST(CountersOutput, AShareOfNothingIsNoValue) {
  const lab::CounterSelection sel = branch_selection();
  const std::vector<double> none = lab::counter_values(sel, {0.0, 0.0, 0.0});
  ASSERT_EQ(none.size(), 2u);
  EXPECT_TRUE(std::isnan(none[0])) << "branch_efficiency of a kernel without branches: " << none[0];
  EXPECT_TRUE(std::isnan(none[1])) << "a ratio over a count of 0: " << none[1];
  const std::vector<double> some = lab::counter_values(sel, {87.5, 16.0, 64.0});
  EXPECT_EQ(some[0], 87.5);
  EXPECT_EQ(some[1], 0.25);

  lab::CounterReport r;
  r.selection = sel;
  auto row = [&](std::string k, double pct, double targets) {
    lab::CounterRow w;
    w.kernel = std::move(k);
    w.grid = {1, 1, 1};
    w.block = {32, 1, 1};
    w.collected = {pct, targets, 64.0};
    w.values = lab::counter_values(sel, w.collected);
    return w;
  };
  r.rows = {row("flat", 0.0, 0.0), row("split", 100.0, 10.0), row("split", 50.0, 30.0),
            row("split", 0.0, 0.0)};
  const std::string text = lab::counters_text(r);
  EXPECT_NE(text.find("#1 flat  grid 1  block 32\n"
                      "    branch_efficiency      -  %\n"
                      "    per_inst               0  targets/inst\n"),  // 0 targets of 64 instructions
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("branch_efficiency  0"), std::string::npos) << text;
  const nlohmann::json j = lab::counters_json(r);
  EXPECT_TRUE(j["rows"][0]["values"]["branch_efficiency"].is_null());
  EXPECT_EQ(j["rows"][1]["values"]["branch_efficiency"], 100.0);
  EXPECT_EQ(j["counters"][0]["of"], "targets.sum");
  EXPECT_TRUE(j["counters"][1]["of"].is_null());

  const lab::CounterReport k = lab::by_kernel(r);
  ASSERT_EQ(k.rows.size(), 2u);
  EXPECT_TRUE(std::isnan(k.rows[0].values[0]));  // no launch of flat branched
  // (100 % of 10 targets + 50 % of 30) over 40 targets; the launch without branches weighs 0.
  EXPECT_EQ(k.rows[1].values[0], 62.5);
  EXPECT_NE(lab::counters_text(k, true).find("    branch_efficiency  62.50  %\n"), std::string::npos)
      << lab::counters_text(k, true);
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

// A run that launched no kernel says so (it printed an empty "counters:"), and the next run
// that launches is compared with the last one that did.
TEST(CountersOutput, WatchSaysWhenARunLaunchedNothing) {
  warplab::app::watch::CounterDiff d("/nonexistent/counters.json");
  lab::CounterReport none = report();
  none.rows.clear();
  const std::string empty = lab::counters_json(lab::by_kernel(none), true).dump();
  EXPECT_EQ(d.compare(empty), "counters: no kernel was launched\n");
  const std::string all = d.compare(lab::counters_json(lab::by_kernel(report()), true).dump());
  EXPECT_EQ(all.rfind("counters:\n  a  conflicts  62 conflicts\n", 0), 0u) << all;
  EXPECT_EQ(d.compare(empty), "counters: no kernel was launched\n");
  EXPECT_EQ(d.compare(lab::counters_json(lab::by_kernel(report()), true).dump()), "counters: no change\n");
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
  // A chunk that ends in "]" (or "]=") would close "[[" ("[=[") one bracket early.
  EXPECT_EQ(counted_chunk("shared x = t[1]").lua,
            "return cuda.counters(" + load + "([=[\nx = t[1]]=]), \"shared\")");
  EXPECT_NE(counted_chunk("shared x = t[a[1]]=").lua.find("([==[\nx = t[a[1]]=]==])"), std::string::npos);
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
