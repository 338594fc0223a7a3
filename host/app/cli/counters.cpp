// cli/counters.cpp: the --counters options (counters.hpp) and the counted-launch watchdog.
#include "app/cli/counters.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "app/cli/exit_codes.hpp"
#include "lab/counters.hpp"
#include "sys/text.hpp"

namespace warplab::app {

CLI::Option* add_counter_options(CLI::App* sub, CounterArgs& a, bool run_options) {
  CLI::Option* counters =
      sub->add_option("--counters", a.words,
                      "count hardware counters of every kernel launch: sets (shared, memory, warps, stalls, "
                      "sync, local, time) or CUPTI metric names, comma-separated")
          ->delimiter(',')
          ->allow_extra_args(false)  // one SET[,SET] per --counters: the next word is the script's
          ->type_name("SET[,SET]");
  if (!run_options) return counters;
  sub->add_option("--counters-by", a.by,
                  "one table per kernel launch (launch) or per kernel, combined (kernel)")
      ->check(CLI::IsMember({"launch", "kernel"}))
      ->needs(counters)
      ->type_name("launch|kernel");
  sub->add_option_function<std::string>(
         "--json",
         [&a](const std::string& v) {
           a.json = v;
           a.json_given = true;
         },
         "write the counters to FILE as JSON instead of the table (-: stdout)")
      ->needs(counters)
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

void start_counter_watchdog(const lab::Options& opts) {
  if (opts.timeout <= 0) return;
  static std::once_flag once;
  const double timeout = opts.timeout;
  std::call_once(once, [timeout] {
    // Detached, and it never returns: the process ends with it or without it. The usual
    // watchdog (lab/sync.hpp) covers launches the driver returns from at once.
    std::thread([timeout] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const std::string why = lab::CounterSession::overdue(timeout);
        if (why.empty()) continue;
        std::fflush(stdout);
        const std::string line = why + "\n";
        (void)!::write(STDERR_FILENO, line.data(), line.size());
        // The launching thread is blocked inside the driver on a kernel that does not end:
        // nothing can unwind it, so the process ends here, with the watchdog's exit code.
        std::_Exit(kTimeout);
      }
    }).detach();
  });
}

}  // namespace warplab::app
