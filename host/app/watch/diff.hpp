// watch/diff.hpp: what an edit changed in the code the GPU runs. Runs write each module's
// PTX, CUBIN, spills, last launches and device into a folder (lab/watch_feed.hpp); after a good run
// the watcher compares them kernel by kernel with the previous run's: one line of resources
// and occupancy per changed kernel (resources.hpp), and with --diff a unified diff of the PTX
// and, when cuobjdump or nvdisasm is installed, of the SASS.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "app/watch/resources.hpp"

namespace warplab::app::watch {

using Lines = std::vector<std::string>;

// A line with register numbers replaced by '#' (%r12 -> %r#, R12 -> R#, UP1 -> UP#).
std::string normalize(const std::string& line);
// True when the two differ at most in register numbers (what line_diff shows as no change).
bool same_code(const Lines& a, const Lines& b);
// Unified diff of two line lists: hunks "@@ -a,n +b,m @@" of "- old", "+ new" and "  context"
// lines, compared with normalize() so that renumbered registers are no change; at most
// max_lines lines of output, then a count of the rest.
std::string line_diff(const Lines& a, const Lines& b, int context, int max_lines);
// Kernel name (mangled) -> its PTX body, without comments and blank lines.
std::map<std::string, Lines> ptx_kernels(const std::string& ptx);
// Kernel name (mangled) -> its SASS instructions, from `cuobjdump -sass` output with the
// addresses and encodings stripped (so a diff shows instructions, not offsets).
std::map<std::string, Lines> sass_kernels(const std::string& cuobjdump_output);

class CodeDiff {
 public:
  // Makes the folder runs write into, in `under` (else the temporary folder); `code_diffs`:
  // also the PTX/SASS diffs (--diff). dir() is "" when no folder could be made (then
  // collect() says nothing).
  explicit CodeDiff(bool code_diffs = true, const std::string& under = {});
  ~CodeDiff();  // removes it
  CodeDiff(const CodeDiff&) = delete;
  CodeDiff& operator=(const CodeDiff&) = delete;
  const std::string& dir() const { return dir_; }
  // Reads what the last run wrote, empties the folder, and returns the report ("" when
  // no kernel changed; nothing on the first run, which has no predecessor). `whole_run`:
  // the run ended well, so a module it did not compile is gone; else (it stopped at an
  // error, or offline at its first launch) only the modules it compiled are compared.
  std::string collect(bool whole_run = true);
  // Empties the folder unread (a run that was cancelled).
  void discard();

 private:
  std::string dir_;
  bool code_diffs_;
  std::vector<std::string> tool_;  // cuobjdump -sass or nvdisasm; empty: SASS diffs unavailable
  bool first_ = true;
  std::map<std::string, Lines> ptx_, sass_;          // "<module>|<kernel>" -> code
  std::map<std::string, KernelNumbers> res_;         // "<module>|<kernel>" -> its resources
  std::map<std::string, lab::LastLaunch> launched_;  // the newest run that launched it
  std::optional<cu::DeviceLimits> dev_;              // the newest run's device
};

}  // namespace warplab::app::watch
