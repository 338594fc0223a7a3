// watch/reports.hpp: what each run reports after its own output, and what the watcher makes
// of it: --counters (counters.hpp) and --lines (lines.hpp). With a folder of the watcher's,
// each run writes its rows as JSON there and the watcher shows what changed; without one,
// each run prints its own table or listing.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/cli/counters.hpp"
#include "app/cli/lines.hpp"
#include "app/watch/counters.hpp"
#include "app/watch/lines.hpp"

namespace warplab::app::watch {

class RunReports {
 public:
  // `counters`: --counters' names (counter_words), `dir`: the watcher's folder ("" when it
  // has none). Throws Error (usage) for --lines with --counters, which a run cannot do
  // together.
  RunReports(std::vector<std::string> counters, const LineArgs& lines, const std::string& dir);

  const CounterArgs& counters() const { return counters_; }  // what each run is given
  const LineArgs& lines() const { return lines_; }
  // After a run: what changed (ok), or the run's files dropped (!ok, "").
  std::string after(bool ok);

 private:
  CounterArgs counters_;
  LineArgs lines_;
  std::unique_ptr<CounterDiff> counter_diff_;
  std::unique_ptr<LineDiff> line_diff_;
};

}  // namespace warplab::app::watch
