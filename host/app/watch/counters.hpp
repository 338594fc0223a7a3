// watch/counters.hpp: `watch --counters SET`: each run writes its counters per kernel as
// JSON (run --counters SET --counters-by kernel --json FILE); after each run the watcher
// shows them the first time, then only what changed since the run before, old -> new
// ("bank_cycles  shared_ld_conflicts_per_request  31 -> 0 conflicts/request").
#pragma once
#include <map>
#include <string>
#include <utility>

namespace warplab::app::watch {

class CounterDiff {
 public:
  // `path`: the file the runs write (the watcher's temporary file).
  explicit CounterDiff(std::string path) : path_(std::move(path)) {}
  // Reads what the last run wrote and removes it; the lines to show: every counter of the
  // first run that wrote some, then the changed ones ("counters: no change" when none),
  // and "" when the run wrote nothing (it failed before its counters were read).
  std::string collect();
  // A failed run: whatever it wrote is dropped, and the next good run is compared with the
  // last good one.
  void skip();

  // The lines for a run whose counters are `json` (what collect() does with the file).
  std::string compare(const std::string& json);

 private:
  struct Value {
    double v = 0;
    bool known = false;  // false: null (a ratio over nothing counted)
    std::string unit;
  };
  using Values = std::map<std::pair<std::string, std::string>, Value>;  // (kernel, counter)
  std::string path_;
  bool first_ = true;
  Values last_;
  std::map<std::string, int> order_;  // counter name -> its column, to list in the table's order
};

}  // namespace warplab::app::watch
