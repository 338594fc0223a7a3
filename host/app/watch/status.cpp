// watch/status.cpp: the lines watch says about each run (status.hpp). POSIX (wait
// status macros).
#include "app/watch/status.hpp"

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "app/cli/exit_codes.hpp"
#include "app/watch/child.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app::watch {

std::string wall_clock() {
  const std::time_t t = std::time(nullptr);
  std::tm tm = {};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

std::string run_header(int run, const Batch* batch, const std::string& script) {
  std::string line = "[" + wall_clock() + "] run " + std::to_string(run);
  if (!batch) return line + ": " + sys::shown(script);  // a name's escapes shown, not obeyed
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - batch->last_event).count();
  line += ": re-run " + std::to_string(ms) + " ms after save (";
  for (std::size_t i = 0; i < batch->paths.size(); ++i)
    line += (i ? ", " : "") + sys::shown(std::filesystem::path(batch->paths[i]).filename().string());
  return line + ")";
}

bool RunEnd::ok() const { return why.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

std::string end_line(int run, const RunEnd& e, double seconds, const std::string& now,
                     const std::string& last_good) {
  if (e.ok()) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", seconds);
    return "[" + now + "] run " + std::to_string(run) + " ok (" + secs + " s)";
  }
  // The run printed the diagnostics or the sentence already: the line points there.
  const int code = e.why.empty() && e.returned && WIFEXITED(e.status) ? WEXITSTATUS(e.status) : -1;
  const bool stopped = code == kCompileError || code == kNoDevice;
  std::string what = e.why;
  if (code == kCompileError)
    what = "compile error, see above";
  else if (code == kNoDevice)
    what = "needs a GPU or a fuller profile, see above";
  else if (what.empty())
    what = describe_status(e.status);
  return std::string(stopped ? "run stopped (" : "run failed (") + what + ") at " + now + "; " +
         (last_good.empty() ? "no good run yet" : "last good run " + last_good);
}

std::string files_line(std::size_t files, std::size_t dirs) {
  return "watching " + sys::plural(files, "file") + " in " + sys::plural(dirs, "directory", "directories") +
         "; Ctrl-C to stop";
}

}  // namespace warplab::app::watch
