// cli/child_group.hpp: the child-process rules the REPL worker and the watch run share. A
// child gets a process group of its own (set on both sides of fork, so a kill right after
// fork finds it): the terminal's Ctrl-C reaches only the parent, and killing the group ends
// whatever the child started. Its stdin is /dev/null. POSIX only.
#pragma once
#include <sys/types.h>

namespace warplab::app {

struct ForkOptions {
  bool die_with_parent = false;  // PR_SET_PDEATHSIG: the child is killed when we exit
  // With die_with_parent: the parent's death (whatever killed it, SIGKILL too) ends the
  // child's whole group, so what it started (os.execute's commands) dies with it. The
  // child gets SIGTERM then, and its handler kills the group; it lasts until an exec.
  bool group_dies_with_parent = false;
  bool unblock_signals = false;  // clear the signal mask (the watcher blocks its own)
};

// fork() with the rules above: the child's pid in the parent, 0 in the child, -1 (errno
// set) when fork fails. In the child only async-signal-safe work was done.
pid_t fork_in_group(const ForkOptions& o);
// Blocks until `pid` exits, then kills what is left in its group. The wait status.
int reap_group(pid_t pid);
// SIGKILL to the group and the child, then reap_group.
int kill_group(pid_t pid);

}  // namespace warplab::app
