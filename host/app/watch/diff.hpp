// watch/diff.hpp: what an edit changed in the code the GPU runs. Runs write each module's
// PTX, CUBIN, spills, last launches and device into a folder (lab/watch_feed.hpp); after a good run
// the watcher compares them kernel by kernel with the previous run's: one line of resources
// and occupancy per changed kernel (resources.hpp), and with --diff a unified diff of the PTX
// and, when cuobjdump or nvdisasm is installed, of the SASS (rtc/listing.hpp: the same
// cleaning and diff as `compile --diff`).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "app/watch/resources.hpp"
#include "rtc/listing.hpp"

namespace warplab::app::watch {

using rtc::Lines;  // the listings compared, and their diff: rtc/listing.hpp

class CodeDiff {
 public:
  // Makes the folder runs write into, in `under` (else the temporary folder); `code_diffs`:
  // also the PTX/SASS diffs (--diff), each at most `max_lines` lines (0: all). dir() is ""
  // when no folder could be made (then collect() says nothing).
  explicit CodeDiff(bool code_diffs = true, const std::string& under = {}, int max_lines = 40);
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
  int max_lines_;
  bool sass_ = false;       // a disassembler was found (and can print SASS): SASS diffs
  bool sass_said_ = false;  // its failure was said (once)
  bool first_ = true;
  std::map<std::string, Lines> ptx_, sass_code_;     // "<module>|<kernel>" -> code
  std::map<std::string, KernelNumbers> res_;         // "<module>|<kernel>" -> its resources
  std::map<std::string, lab::LastLaunch> launched_;  // the newest run that launched it
  std::optional<cu::DeviceLimits> dev_;              // the newest run's device
};

}  // namespace warplab::app::watch
