// watch/reports.cpp: RunReports (reports.hpp).
#include "app/watch/reports.hpp"

#include "sys/error.hpp"

namespace warplab::app::watch {

RunReports::RunReports(std::vector<std::string> words, const LineArgs& lines, const std::string& dir) {
  if (!words.empty()) {
    // Per kernel as JSON into a file of ours (not the table); without a folder of ours each
    // run prints its table, by launch.
    counters_ = {std::move(words), dir.empty() ? "launch" : "kernel",
                 dir.empty() ? "" : dir + "/counters.json"};
    if (!dir.empty()) counter_diff_ = std::make_unique<CounterDiff>(counters_.json);
  }
  if (!lines.on()) return;
  if (counter_diff_ || !counters_.words.empty())
    throw Error(ErrorKind::usage,
                "--lines and --counters cannot run together: per-line counts patch each kernel's code, which "
                "the counters would count too; watch with one of them");
  lines_ = lines;
  lines_.json = dir.empty() ? "" : dir + "/lines.json";
  if (!dir.empty()) line_diff_ = std::make_unique<LineDiff>(lines_.json);
}

std::string RunReports::after(bool ok) {
  std::string out;
  if (counter_diff_) ok ? void(out += counter_diff_->collect()) : counter_diff_->skip();
  if (line_diff_) ok ? void(out += line_diff_->collect()) : line_diff_->skip();
  return out;
}

}  // namespace warplab::app::watch
