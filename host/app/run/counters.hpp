// run/counters.hpp: `run --counters`: a counter session around the whole script, unedited
// (offline: the names checked against the profile's chip, and one note after the script),
// then the table of every launch (or of every kernel, --counters-by kernel) after the
// script's own output, or the JSON (--json FILE).
#pragma once
#include <lua.hpp>

#include <memory>
#include <string>
#include <vector>

#include "app/cli/counters.hpp"
#include "lab/counters.hpp"

namespace warplab::lab {
struct Run;
}

namespace warplab::app {

class RunCounters {
 public:
  // Starts counting on the state's run before its script runs. Throws Error (bad_input)
  // for names that are no set or metric ("did you mean"), cu::Error when CUPTI is missing
  // (exit 3) or refuses (exit 6).
  RunCounters(const CounterArgs& a, lua_State* L);
  ~RunCounters();
  RunCounters(const RunCounters&) = delete;
  RunCounters& operator=(const RunCounters&) = delete;

  // After the script, whether or not it succeeded: the table, the JSON, or offline the
  // note. Returns kOk, or the exit code for counters that could not be read (a fault of a
  // counted kernel: 6; the JSON not written: 4), their sentence said on stderr. After the
  // watchdog fired, nothing is read (`timed_out`).
  int finish(bool timed_out);

 private:
  CounterArgs args_;
  std::vector<std::string> words_;
  lab::Run& run_;
  std::unique_ptr<lab::CounterSession> session_;  // null offline
  lab::CounterSelection offline_;                 // offline: the names, checked
};

// --json FILE's text written ("-": stdout): kOk, or kBadInput with "warplab: --json: " and
// the writer's sentence on stderr (a file the run read meanwhile, a full disk). Checked
// before the script ran (run/command.cpp); `run --counters` and `run --lines` both end here.
int write_json_output(const std::string& path, const std::string& text);

}  // namespace warplab::app
