// watch/child.hpp: one run of a watched script, isolated in a child process with a process
// group of its own, signals unblocked, stdin from /dev/null. The watcher polls finished()
// on SIGCHLD and kills the group on timeout, on a new save and on exit. Also reads the
// dependency file the run wrote (lab/deps.hpp's format). POSIX only.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warplab::app::watch {

class ChildRun {
 public:
  using Env = std::vector<std::pair<std::string, std::string>>;
  // Starts `exe` with `argv` (argv[0] included) and `env` added to the environment.
  // Throws std::system_error when fork fails; an exec failure shows as exit 127.
  ChildRun(const std::string& exe, const std::vector<std::string>& argv, const Env& env);
  ~ChildRun();  // kill() unless already reaped
  ChildRun(const ChildRun&) = delete;
  ChildRun& operator=(const ChildRun&) = delete;

  pid_t pid() const { return pid_; }
  std::chrono::steady_clock::time_point started() const { return started_; }
  // The wait status once the child has exited (reaped then); nullopt while it runs.
  std::optional<int> finished();
  // SIGKILL to the whole process group, then reap. Returns the wait status.
  int kill();

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::chrono::steady_clock::time_point started_;
};

// "exit 1", "signal 11 (Segmentation fault)".
std::string describe_status(int wait_status);

// The paths in a dependency file, one a line, blank lines skipped; {} when unreadable.
std::vector<std::string> read_deps_file(const std::string& path);

// A fresh, empty file for a run's dependency record, in $TMPDIR or /tmp; removed by
// the destructor.
class TempFile {
 public:
  TempFile();
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace warplab::app::watch
