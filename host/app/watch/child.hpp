// watch/child.hpp: one run of a watched script, in a child process forked from the watcher
// without exec (it keeps what the watcher warmed: NVRTC, its precompiled headers), with a
// process group of its own, signals unblocked, stdin from /dev/null, killed when the
// watcher dies. The child gets ready first and starts the script only on go(), so a run can
// be forked before the save that starts it (the standby). The watcher polls finished() on
// SIGCHLD and kills the group on timeout, on a new save and on exit. Also reads the
// feed files a run leaves (lab/watch_feed.hpp's formats). POSIX only.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warplab::app::watch {

class ChildRun {
 public:
  // In the child: says "ready" and waits for go(); false when the watcher went away
  // without it (then the body leaves without running anything).
  using Ready = std::function<bool()>;
  // What the child does; its result is the child's exit status. Runs after the child
  // closed `close_fds` (the watcher's own descriptors); stdout and stderr are flushed and
  // the child leaves with _exit: the watcher's objects, copied by fork, are not destroyed.
  using Body = std::function<int(const Ready&)>;
  // Throws std::system_error when fork or the socket fails.
  ChildRun(const Body& body, const std::vector<int>& close_fds);
  ~ChildRun();  // kill() unless already reaped
  ChildRun(const ChildRun&) = delete;
  ChildRun& operator=(const ChildRun&) = delete;

  pid_t pid() const { return pid_; }
  // The descriptor that turns readable when the child says it is ready (or dies).
  int ready_fd() const { return fd_; }
  // Reads the child's "ready" if it came; true once it has.
  bool ready();
  // Lets the child start its run (once); started() counts from here.
  void go();
  bool gone_ahead() const { return went_; }
  std::chrono::steady_clock::time_point forked() const { return forked_; }
  std::chrono::steady_clock::time_point started() const { return started_; }
  // The wait status once the child has exited (reaped then); nullopt while it runs.
  std::optional<int> finished();
  // Once finished: true when the body returned its status (warplab's outcome: a compile
  // error is 5), false when the child ended otherwise (the script's os.exit, a signal).
  bool returned();
  // SIGKILL to the whole process group, then reap. Returns the wait status.
  int kill();

 private:
  pid_t pid_ = -1;
  int fd_ = -1;  // our end of the socket pair: "ready" comes in, "go" goes out
  bool ready_ = false, went_ = false, returned_ = false;
  std::optional<int> status_;
  std::chrono::steady_clock::time_point forked_, started_;
};

// What `ask` returns, asked in a child process forked for it (what would start the CUDA
// driver, which the watcher must not: its runs are forked from it), killed should the
// watcher die first; "" when the child cannot be made or says nothing.
std::string answer_in_child(const std::function<std::string()>& ask);

// "exit 1", "signal 11 (Segmentation fault)".
std::string describe_status(int wait_status);

// A feed file a run leaves for the watcher (lab/watch_feed.hpp: its dependency file, the files
// of its code folder): its text, empty when the run wrote none; `problem` says why one that
// is there could not be read ("cannot read PATH: Is a directory"), so that it is never
// taken for an empty one.
struct FeedFile {
  std::string text;
  std::string problem;
};
FeedFile read_feed_file(const std::string& path);
// read_feed_file, then the file removed (one read once: the code folder's modules list).
FeedFile take_feed_file(const std::string& path);

// A run's dependency file (lab/watch_feed.hpp): the files it read, one a line, and those it
// wrote ("> PATH" lines: with the path their links lead to as well), blank lines skipped;
// empty when missing, with `problem` saying why when unreadable. Read while the run goes
// too: it writes a line before each write.
struct RunFiles {
  std::vector<std::string> read;
  std::set<std::string> written;
  std::string problem;
};
RunFiles read_deps_file(const std::string& path);

// The files to watch after a run: those it read and the script; after a failed run the
// last list's too (a run that stopped early read less). Each once, in order: a long
// session of failed runs once grew the list by the script and its files with each run.
std::vector<std::string> files_to_watch(std::vector<std::string> read, const std::string& script, bool ok,
                                        const std::vector<std::string>& last);

}  // namespace warplab::app::watch
