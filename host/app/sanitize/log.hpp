// sanitize/log.hpp: what `run --sanitize TOOL` reads back: compute-sanitizer's log parsed
// into findings (log.cpp) and summed up per kernel and file:line in the closing table
// (table.cpp). Pure functions, unit-tested; no Lua, no CUDA.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::app::sanitize {

// One error or warning record of the log, as compute-sanitizer printed it.
struct Finding {
  std::string kind;    // "Invalid __global__ read of size 4 bytes", "race: Write / Read"
  std::string kernel;  // "race_sum" (no parameters); "" for a host API error
  std::string file;    // as printed; "" without -lineinfo
  int line = 0;
  std::string detail;   // "shared", "0 bytes after a 4000-byte allocation", "cuMemcpyDtoH"
  long long count = 1;  // racecheck: the hazards the record stands for; else 1
  bool warning = false;
};

// Everything read from one log.
struct Report {
  std::vector<Finding> findings;           // in log order
  bool banner = false;                     // "COMPUTE-SANITIZER" was seen
  std::optional<long long> error_summary;  // "ERROR SUMMARY: N errors"
  // "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)"
  std::optional<long long> race_displayed, race_errors, race_warnings;
  std::vector<std::string> tool_messages;  // the tool's own failures ("Internal Sanitizer Error: ...")
  std::vector<std::string> mismatches;     // summary counts that disagree with the records

  bool has_summary() const { return error_summary || race_displayed; }
  // Errors, the summary lines' counts taking precedence over the records (printing stops
  // at --print-limit); warnings do not count.
  long long errors() const;
};

// Parses compute-sanitizer's text output (its --log-file, or stdout mixed with the
// program's). Only lines that start with its "=========" prefix are read; lines it does not
// know are skipped; an unknown top-level line followed by an "at <location>" line still
// becomes a finding (a kind this parser has not met). The summary counts are compared with
// the records read, and any difference is described in `mismatches`.
Report parse_log(std::string_view text);

// Findings with the same kind, kernel, file:line and detail, counts summed, in order of
// first appearance.
std::vector<Finding> group(const std::vector<Finding>& findings);

// `file` relative to `cwd` when inside it ("kernels_src/sanitize/planted.cu"), else as is.
std::string display_path(const std::string& file, const std::string& cwd);

// The closing table: one row per group, then one line with the totals, e.g.
//   racecheck: 1 error (2048 hazards) in kernel planted_race at kernels_src/...:41
// and the cross-check notes. `cwd` shortens paths (display_path).
std::string format_summary(const std::string& tool, const Report& r, const std::string& cwd);

}  // namespace warplab::app::sanitize
