// run/lines.hpp: `run --lines`: a line session around the whole script (every cuda.compile
// adds -lineinfo), then each kernel's annotated listing after the script's own output, or
// the rows as JSON (--json FILE). Offline, one note: the map needs no GPU (compile
// --lines), the counts do.
#pragma once
#include <lua.hpp>

#include <memory>
#include <string>

#include "app/cli/lines.hpp"
#include "lab/lines.hpp"

namespace warplab::lab {
struct Run;
}

namespace warplab::app {

class RunLines {
 public:
  // Starts collecting on the state's run before its script runs. Throws Failure(kBadInput)
  // for an unknown set; cu::Error when CUPTI is missing (exit 3) or refuses (exit 6:
  // another NVIDIA tool attached, a device it does not support).
  RunLines(const LineArgs& a, std::string json, bool color, lua_State* L);
  ~RunLines();
  RunLines(const RunLines&) = delete;
  RunLines& operator=(const RunLines&) = delete;

  // After the script, whether or not it succeeded: the listing, the JSON, or offline the
  // note. Returns kOk or the exit code for rows that could not be read (a fault: 6; the
  // JSON not written: 1), their sentence said on stderr.
  int finish(bool timed_out);

 private:
  LineArgs args_;
  std::string json_;
  bool color_;
  lab::Run& run_;
  std::unique_ptr<lab::LineSession> session_;  // null offline
};

}  // namespace warplab::app
