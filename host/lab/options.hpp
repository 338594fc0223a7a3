// options.hpp: the options a run works with, in one plain struct: the command line sets
// them once (app/main.cpp: the global options; run's and watch's --no-check; the REPL's
// echo), and the run of a Lua state keeps them (lab/run.hpp). No Lua, no CUDA: depends on
// the standard library only.
#pragma once
#include <string>

namespace warplab::lab {

struct Options {
  int device = 0;       // --device: the live device to work on
  std::string profile;  // --profile or WARPLAB_PROFILE: work from it, never touch a GPU
  double timeout = 0;   // --timeout: the kernel watchdog, seconds (0: none)
  bool sync = false;    // --sync: synchronize after every launch
  bool quiet = false;   // -q, --quiet: print less
  bool color = true;    // false: --no-color or NO_COLOR
  bool cache = true;    // false: --no-cache (neither read nor write the compile cache)
  bool check = true;    // false: --no-check (run, watch): skip launch validation
  // The REPL: a failed cuda.compile also prints its diagnostics (stderr), since
  // `m = cuda.compile{...}` keeps only the nil and would lose them.
  bool echo_compile_errors = false;
};

}  // namespace warplab::lab
