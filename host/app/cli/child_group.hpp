// cli/child_group.hpp: the child-process rules the REPL worker and the watch run share. A
// child gets a process group of its own (set on both sides of fork, so a kill right after
// fork finds it): the terminal's Ctrl-C reaches only the parent, and killing the group ends
// whatever the child started. Its stdin is /dev/null. What the child started that left its
// group (`setsid`, a daemon) is found as an orphan: the child and the parent are each the
// reaper of their orphaned descendants (PR_SET_CHILD_SUBREAPER), and end them. Linux only.
#pragma once
#include <sys/types.h>

#include <vector>

namespace warplab::app {

struct ForkOptions {
  bool die_with_parent = false;  // PR_SET_PDEATHSIG: the child is killed when we exit
  // With die_with_parent: the parent's death (whatever killed it, SIGKILL too) ends the
  // child's whole group, so what it started (os.execute's commands) dies with it. The
  // child gets parent_died_signal() then, and its handler ends what it started and its
  // group; it lasts until an exec. (Not SIGTERM: a run sent SIGTERM is said to have been.)
  bool group_dies_with_parent = false;
  bool unblock_signals = false;  // clear the signal mask (the watcher blocks its own)
  // The child becomes the reaper of its orphaned descendants (what it started that left its
  // group is its child when its parent dies), for kill_children() when it is done.
  bool reaper = false;
};

// fork() with the rules above: the child's pid in the parent, 0 in the child, -1 (errno
// set) when fork fails. In the child only async-signal-safe work was done.
pid_t fork_in_group(const ForkOptions& o);
// Blocks until `pid` exits, then kills what is left in its group. The wait status.
int reap_group(pid_t pid);
// SIGKILL to the group and the child, then reap_group.
int kill_group(pid_t pid);

// The signal a child with `group_dies_with_parent` gets when its parent dies (a real-time
// signal nothing else sends); the keeper of cleanup.hpp sends it too.
int parent_died_signal();

// This process becomes the reaper of its orphaned descendants: when a child of ours with
// `reaper` dies, what it started outside its group becomes ours, for kill_adopted().
void reap_orphans();
// Kills and reaps the children we adopted (those outside our own process group) but the
// ones in `keep` (every child of ours in a group of its own that lives on: a worker, a
// keeper), and waits, a second at most, until
// `group` (a child's group just killed; 0: none) is gone, adopting and killing what its
// members started as they die.
void kill_adopted(const std::vector<pid_t>& keep, pid_t group);
// Reaps the children we adopted (outside our own process group, not in `keep`) that have
// ended; those still running are left alone.
void reap_exited(const std::vector<pid_t>& keep);
// In a child with `reaper`, when it is done: kills and reaps every child of its own, and
// what they started (they come to it as they die), a second at most. Async-signal-safe.
void kill_children();

}  // namespace warplab::app
