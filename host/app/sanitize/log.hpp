// sanitize.hpp: `warplab run --sanitize TOOL`: warplab runs itself again under NVIDIA's
// compute-sanitizer (kernels compiled with -lineinfo), reads the tool's log and sums its
// findings up per kernel and file:line. The log parser and the summary are pure functions
// (sanitize.cpp, unit-tested); finding the tool and running the child are in
// sanitize_run.cpp (POSIX). No Lua, no CUDA.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warplab::app::sanitize {

// The tools --sanitize accepts, in the order the usage message lists them.
const std::vector<std::string>& tools();
bool valid_tool(const std::string& tool);

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

// ---- sanitize_run.cpp --------------------------------------------------------------

// Where compute-sanitizer is looked for, in order: $WARPLAB_COMPUTE_SANITIZER alone when
// set (a path to the executable); else each PATH entry, then $CUDA_HOME, $CUDA_PATH,
// $CUDAToolkit_ROOT, the toolkit whose headers NVRTC uses (rtc::cuda_include_dirs) and
// /usr/local/cuda, each as bin/compute-sanitizer and compute-sanitizer/compute-sanitizer.
// `getenv` is injectable for tests.
using Getenv = std::function<const char*(const char*)>;
std::vector<std::string> candidates(const Getenv& getenv, const std::vector<std::string>& toolkit_dirs);
// The first candidate that is an executable file; "" when none is.
std::string find_tool(const std::vector<std::string>& candidates);

// The command line of the child run: `argv` (warplab's own, argv[0] included) with
// `--sanitize X` / `--sanitize=X` removed (never after a `--`), argv[0] replaced by `exe`.
std::vector<std::string> child_argv(const std::vector<std::string>& argv, const std::string& exe);

// Runs the child under compute-sanitizer and prints the summary. Returns the exit code:
// the child's when the tool found nothing, kSanitizerFindings when it found errors,
// kNoSanitizer (after one sentence) when compute-sanitizer is nowhere to be found.
int run(const std::string& tool, const std::vector<std::string>& argv);

}  // namespace warplab::app::sanitize
