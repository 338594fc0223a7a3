// cli/cleanup.hpp: what must not outlive a command however it ends, SIGKILL included: a
// private folder of temporary files and the process groups of its children. A small
// process (the keeper) is forked first; it waits on a pipe that only this process writes,
// and when the pipe closes (we exited, or were killed) it kills the groups it was told of
// and removes the folder. The folder holds a lock while its keeper or owner lives, so a
// folder whose keeper was killed too is removed by the next command that makes one. Used
// by `watch` (its runs' records, warm headers) and by `compile --pch`. POSIX only.
#pragma once
#include <sys/types.h>

#include <string>

namespace warplab::app {

class Cleanup {
 public:
  // Removes the folders of earlier Cleanups of the same `what` that nobody holds any more,
  // creates $TMPDIR/warplab-<what>-XXXXXX (or in /tmp when TMPDIR cannot hold it: note()
  // says so, for the caller to print) and forks the keeper. When no folder can be made,
  // dir() is "" and note() says why: the caller does without. Throws Error (internal)
  // only when the keeper cannot be started. Fork it before any thread is started.
  explicit Cleanup(const std::string& what);
  // Removes the folder now and lets the keeper go (it has nothing left to do).
  ~Cleanup();
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;

  const std::string& dir() const { return dir_; }  // "" when none could be made
  // Why $TMPDIR was passed over, or why there is no folder (sys/temp.hpp); or "".
  const std::string& note() const { return note_; }
  // A child's process group to kill should we die first; and that it is gone (reaped).
  void adopt_group(pid_t pgid);
  void forget_group(pid_t pgid);
  // The pipe's write end: a forked child closes it, so that our death alone ends the wait.
  int fd() const { return fd_; }
  // The keeper's pid (a child of ours in a group of its own, for kill_adopted's `keep`).
  pid_t keeper() const { return keeper_; }

 private:
  std::string dir_;
  std::string note_;
  pid_t keeper_ = -1;
  int fd_ = -1;
  int lock_ = -1;  // the folder's lock, held by this process, the keeper and forked children
};

// Removes a folder and what it holds, without allocating (the keeper runs it in a child
// of a process that may hold locks). False when something could not be removed.
bool remove_tree(const char* path);

}  // namespace warplab::app
