// cli/counters.cpp: the --counters options (counters.hpp); `--counters list` prints what
// `warplab counters` does (counters_list/command.cpp).
#include "app/cli/counters.hpp"

#include <iostream>

#include "sys/text.hpp"

namespace warplab::app {

CLI::Option* add_counter_options(CLI::App* sub, CounterArgs& a, bool run_options) {
  CLI::Option* counters =
      sub->add_option("--counters", a.words,
                      "count hardware counters of every kernel launch: sets (shared, memory, warps, stalls, "
                      "sync, local, time) or CUPTI metric names, comma-separated")
          ->delimiter(',')
          ->allow_extra_args(false)  // one SET[,SET] per --counters: the next word is the script's
          // `--counters list`: the listing of `warplab counters`, exit 0, nothing run. Said
          // while parsing, as --help is, so that it needs no script.
          ->each([](const std::string& v) {
            if (sys::trim(v) != "list") return;
            std::cout << counter_list_text();
            throw CLI::Success();
          })
          ->type_name("SET[,SET]");
  if (!run_options) return counters;
  sub->add_option("--counters-by", a.by,
                  "one table per kernel launch (launch) or per kernel, combined (kernel)")
      ->check(CLI::IsMember({"launch", "kernel"}))
      ->needs(counters)
      ->type_name("launch|kernel");
  // Shared with --lines (cli/lines.hpp): run says which one it needs.
  sub->add_option_function<std::string>(
         "--json",
         [&a](const std::string& v) {
           a.json = v;
           a.json_given = true;
         },
         "write the counters (or the --lines rows) to FILE as JSON instead of the table (-: stdout)")
      ->type_name("FILE");
  return counters;
}

std::vector<std::string> counter_words(const CounterArgs& a) {
  std::vector<std::string> out;
  for (const std::string& w : a.words) {
    std::string word = sys::trim(w);
    if (word.empty()) continue;
    bool seen = false;
    for (const auto& o : out) seen = seen || o == word;
    if (!seen) out.push_back(std::move(word));
  }
  return out;
}

}  // namespace warplab::app
