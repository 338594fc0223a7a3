// run/lines.hpp: `run --lines`: a line session around the whole script (every cuda.compile
// adds -lineinfo), then each kernel's annotated listing after the script's own output, or
// the rows as JSON (--json FILE). With counts and stalls asked (--lines=counts,stalls or
// all) the script runs twice: counted, then again in a fresh Lua state with its output
// dropped, sampled; one listing holds both. Offline, one note (the counts need a GPU), then
// the map of each kernel the script compiled: which lines made which instructions, of what
// kind.
#pragma once
#include <lua.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/lines.hpp"
#include "bind/state.hpp"
#include "lab/lines.hpp"

namespace warplab::lab {
struct Run;
}

namespace warplab::app {

// The script once more, for the stall pass: its name, its arguments, and a fresh state
// with the run's parameters.
struct ScriptAgain {
  std::string script;
  std::vector<std::string> args;
  std::function<bind::StatePtr()> fresh_state;
};

class RunLines {
 public:
  // Starts collecting on the state's run before its script runs. Throws Error (bad_input)
  // for an unknown set; cu::Error when CUPTI is missing (exit 3) or refuses (exit 6:
  // another NVIDIA tool attached, a device it does not support).
  RunLines(const LineArgs& a, bool color, lua_State* L);
  ~RunLines();
  RunLines(const RunLines&) = delete;
  RunLines& operator=(const RunLines&) = delete;

  // After the script, whether or not it succeeded: the listing, the JSON, or offline the
  // note and the maps; with counts and stalls asked, the stall pass first (`again`).
  // Returns kOk or the exit code for rows that could not be read (a fault: 6; the JSON not
  // written: 1), their sentence said on stderr.
  int finish(bool timed_out, const ScriptAgain& again);

 private:
  int show(const lab::LineReport& report);  // the listing, or the JSON; kOk or the write's failure
  // The stall pass: the stall columns of the script's second run, or nullopt (said why).
  std::optional<lab::LineReport> sample_again(const ScriptAgain& again);

  LineArgs args_;
  bool color_;
  bool twice_ = false;  // counts and stalls: the stall pass after the counts
  lab::Run& run_;
  std::unique_ptr<lab::LineSession> session_;  // null offline
  std::vector<lab::ModuleRef> built_;          // offline: every module the script built
};

}  // namespace warplab::app
