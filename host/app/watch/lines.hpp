// watch/lines.hpp: `watch --lines[=SET]`: each run writes its per-line rows as JSON (run
// --lines=SET --json FILE); after each run the watcher shows each kernel's hottest lines the
// first time, then what changed at line level since the run before, old -> new
// ("bank  line 14: 32.0-way -> 1.0-way shared", "bank  line 22: stalls 61 % -> 12 %").
// Offline the rows are the map alone: the lines with memory accesses, branches or barriers
// first, then which lines' instructions or their kinds changed.
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace warplab::app::watch {

class LineDiff {
 public:
  // `path`: the file the runs write (the watcher's temporary file).
  explicit LineDiff(std::string path) : path_(std::move(path)) {}
  // Reads what the last run wrote and removes it; the lines to show (see above; "lines: no
  // change" when nothing moved), and "" when the run wrote nothing.
  std::string collect();
  // A failed run: whatever it wrote is dropped; the next good run is compared with the last
  // good one.
  void skip();

  // The lines for a run whose rows are `json` (what collect() does with the file).
  std::string compare(const std::string& json);

  // What one line did, as compared (NaN: not counted or not sampled).
  struct Values {
    double inst, shared_way, global_ratio, predicated_off, share, local;
    std::string text;
    std::size_t instructions = 0;  // what the line compiled to (offline, the map is all there is)
    std::string kinds;             // "shared load, branch"
  };
  using Key = std::tuple<std::string, std::string, unsigned>;  // kernel, file, line

 private:
  std::string path_;
  bool first_ = true;
  std::map<Key, Values> last_;
};

}  // namespace warplab::app::watch
