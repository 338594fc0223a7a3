// watch/status.hpp: the lines `warplab watch` says about each run on stderr: the header
// ("[14:02:40] run 2: re-run 11 ms after save (k.cu)"), the end ("[14:02:41] run 2 ok
// (0.84 s)", "run failed (exit 1) at ...", "run stopped (compile error, see above) at ...")
// and the watched set. No Lua; depends on files.hpp (Batch).
#pragma once
#include <cstddef>
#include <string>

#include "app/watch/files.hpp"

namespace warplab::app::watch {

// "14:02:40", local time.
std::string wall_clock();

// "[T] run N: SCRIPT" for the first run, "[T] run N: re-run X ms after save (a.cu, b.h)"
// for one a batch of saves started.
std::string run_header(int run, const Batch* batch, const std::string& script);

// How a run ended: its wait status, whether warplab chose it (the run returned it rather
// than the script's os.exit or a signal: child.hpp's returned()), and why watch ended it
// ("timed out after 5 s"; "" when it ended by itself).
struct RunEnd {
  int status = 0;
  bool returned = false;
  std::string why;
  bool ok() const;
};

// The end of run N: "[T] run N ok (S s)" when it went well, else "run failed (WHAT) at T;
// last good run T0" (or "no good run yet"). A compile error (5) or a run that needs a GPU
// or a fuller profile (3) that warplab chose says "run stopped" and points at the run's own
// message above instead of an exit status. No newline.
std::string end_line(int run, const RunEnd& e, double seconds, const std::string& now,
                     const std::string& last_good);

// "watching 4 files in 3 directories; Ctrl-C to stop".
std::string files_line(std::size_t files, std::size_t dirs);

}  // namespace warplab::app::watch
