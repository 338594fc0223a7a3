// cli/counters.hpp: hardware counters on the command line, as `run` and `watch` take them:
// --counters SET[,SET] (repeatable, in any option position), and for `run` --counters-by
// launch|kernel and --json FILE; the names as words; and the watchdog for counted launches
// (CUPTI replays a counted launch to its end inside the driver call, where the usual
// watchdog cannot reach it), which `run` and the REPL's worker start with --timeout.
// No Lua.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "lab/options.hpp"

namespace warplab::app {

struct CounterArgs {
  std::vector<std::string> words;  // as given, split at commas: "shared", "memory", raw names
  std::string by = "launch";       // --counters-by: launch | kernel
  std::string json;                // --json FILE ("-": stdout): the counters as JSON, not the table
  bool json_given = false;         // --json "" is an error, not "no --json"
};

// --counters on `sub`; with `run_options` also --counters-by and --json (which need it).
// Returns the --counters option (watch passes it on to its runs).
CLI::Option* add_counter_options(CLI::App* sub, CounterArgs& a, bool run_options);

// The names of `a` trimmed, empty ones dropped, each once, in the order given.
std::vector<std::string> counter_words(const CounterArgs& a);

// With opts.timeout > 0: a thread that ends the process (the sentence on stderr, exit 7)
// once a counted launch has been inside the driver longer than the timeout. Once per
// process; a no-op without --timeout.
void start_counter_watchdog(const lab::Options& opts);

}  // namespace warplab::app
