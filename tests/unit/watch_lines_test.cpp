// watch_lines_test.cpp: what `watch --lines` prints after each run, on made-up rows as
// `run --lines --json` writes them (no GPU): each kernel's hottest lines the first time,
// then what changed at each line old -> new (the N-way, the sectors, the share predicated
// off, the stall share by 5 points or more), "no change", a kernel no longer launched, and
// the map alone offline (instructions and their kinds).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "app/watch/lines.hpp"

namespace {

using nlohmann::json;

json row(const std::string& kernel, unsigned line, const std::string& text, json inst, json way,
         json share = nullptr) {
  return {{"kernel", kernel},
          {"file", "k.cu"},
          {"line", line},
          {"text", text},
          {"instructions", 3},
          {"kinds", {"shared load"}},
          {"inst", inst},
          {"shared_way", way},
          {"global_sectors", nullptr},
          {"global_ideal", nullptr},
          {"predicated_off", 0.0},
          {"local_sectors", nullptr},
          {"share", share}};
}

std::string rows(std::initializer_list<json> r) {
  json list = json::array();
  for (const json& x : r) list.push_back(x);
  return json{{"rows", list}}.dump();
}

}  // namespace

TEST(WatchLines, FirstTheHotLinesThenWhatChanged) {
  warplab::app::watch::LineDiff d("/nonexistent/lines.json");
  EXPECT_EQ(d.collect(), "");  // the run wrote nothing
  EXPECT_EQ(d.compare(rows({row("bank", 4, "  s[i] = i;", 4096, 1.0),
                            row("bank", 8, "  acc += s[i * 32];", 65536, 32.0),
                            row("bank", 9, "  out[i] = acc;", 0, nullptr)})),
            "hot lines:\n"
            "  bank  line 8: 65536 warp inst, 32.0-way shared     acc += s[i * 32];\n"
            "  bank  line 4: 4096 warp inst, 1.0-way shared     s[i] = i;\n");
  EXPECT_EQ(d.compare(rows(
                {row("bank", 4, "  s[i] = i;", 4096, 1.0), row("bank", 8, "  acc += s[i];", 65536, 1.0)})),
            "lines changed:\n  bank  line 8: 32.0-way -> 1.0-way shared\n");
  EXPECT_EQ(d.compare(rows(
                {row("bank", 4, "  s[i] = i;", 4096, 1.0), row("bank", 8, "  acc += s[i];", 65536, 1.0)})),
            "lines: no change\n");
  EXPECT_EQ(d.compare(rows({row("other", 2, "x", 10, 1.0)})), "lines changed:\n  bank: no longer launched\n");
  EXPECT_EQ(d.compare("not json"), "lines: unreadable (/nonexistent/lines.json)\n");
}

TEST(WatchLines, StallSharesMoveByFivePoints) {
  warplab::app::watch::LineDiff d("/nonexistent/lines.json");
  (void)d.compare(
      rows({row("k", 22, "a", nullptr, nullptr, 0.61), row("k", 23, "b", nullptr, nullptr, 0.39)}));
  EXPECT_EQ(
      d.compare(rows({row("k", 22, "a", nullptr, nullptr, 0.63), row("k", 23, "b", nullptr, nullptr, 0.37)})),
      "lines: no change\n");  // sampling noise
  EXPECT_EQ(
      d.compare(rows({row("k", 22, "a", nullptr, nullptr, 0.12), row("k", 23, "b", nullptr, nullptr, 0.88)})),
      "lines changed:\n  k  line 22: stalls 63 % -> 12 %\n  k  line 23: stalls 37 % -> 88 %\n");
}

TEST(WatchLines, OfflineTheMapAlone) {
  warplab::app::watch::LineDiff d("/nonexistent/lines.json");
  json a = row("bank", 8, "  acc += s[i];", nullptr, nullptr),
       b = row("bank", 7, "  for (;;)", nullptr, nullptr);
  b["kinds"] = {"branch"};
  b["instructions"] = 9;
  EXPECT_EQ(d.compare(rows({a, b})),
            "lines (no GPU: what they compiled to):\n"
            "  bank  line 8: 3 instructions [shared load]     acc += s[i];\n"
            "  bank  line 7: 9 instructions [branch]     for (;;)\n");
  a["kinds"] = {"global load"};
  EXPECT_EQ(d.compare(rows({a, b})), "lines changed:\n  bank  line 8: [shared load] -> [global load]\n");
}
