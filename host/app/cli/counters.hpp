// cli/counters.hpp: hardware counters on the command line, as `run` and `watch` take them:
// --counters SET[,SET] (repeatable, in any option position; `--counters list` prints the
// sets), and for `run` --counters-by launch|kernel and --json FILE; the names as words.
// (The counted-launch watchdog that `run` and the REPL's worker start with --timeout is
// lab's: lab/sync.hpp.) No Lua.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

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

// What `warplab counters` prints with no word and no GPU named: every set, each metric
// with its unit, meaning and CUPTI name (counters_list/command.cpp). `--counters list`
// prints it and exits 0.
std::string counter_list_text();

// The names of `a` trimmed, empty ones dropped, each once, in the order given.
std::vector<std::string> counter_words(const CounterArgs& a);

}  // namespace warplab::app
