// cli/lines.hpp: per-line counts on the command line, as `run` takes them: --lines[=SET,...]
// (a flag: the next word stays the script's; the sets are lab/lines.hpp's) and --sass (each
// line's SASS under it). --json FILE is the counters' option (cli/counters.hpp), shared.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace warplab::app {

struct LineArgs {
  std::string set;    // "" when --lines was not given; "counts" for a bare --lines
  bool sass = false;  // --sass: the SASS instructions under each line
  std::string json;   // the rows as JSON into this file ("-": stdout); "": the listing. run: --json
  bool on() const { return !set.empty(); }
  std::vector<std::string> words() const;  // the sets, split at commas and trimmed
};

// --lines and, with `sass`, --sass (which needs it) on `sub`. Returns the --lines option.
CLI::Option* add_line_options(CLI::App* sub, LineArgs& a, bool sass = true);

}  // namespace warplab::app
