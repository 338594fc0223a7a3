// cli/child_group.cpp: forking into a process group of one's own, and killing and reaping
// that group (child_group.hpp). POSIX (fork, setpgid, prctl, waitpid) only.
#include "app/cli/child_group.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace warplab::app {

namespace {

// The child's SIGTERM (its parent died): the whole group goes, this process with it.
void kill_own_group(int) { ::kill(0, SIGKILL); }

}  // namespace

pid_t fork_in_group(const ForkOptions& o) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return pid;
  if (pid > 0) {
    ::setpgid(pid, pid);
    return pid;
  }
  ::setpgid(0, 0);
  if (o.die_with_parent) {
    int sig = SIGKILL;
    if (o.group_dies_with_parent) {
      struct sigaction sa = {};
      sa.sa_handler = kill_own_group;
      sigemptyset(&sa.sa_mask);
      ::sigaction(SIGTERM, &sa, nullptr);
      sigset_t term;
      sigemptyset(&term);
      sigaddset(&term, SIGTERM);
      ::sigprocmask(SIG_UNBLOCK, &term, nullptr);
      sig = SIGTERM;
    }
    ::prctl(PR_SET_PDEATHSIG, sig);
    if (::getppid() != parent) ::_exit(0);  // the parent died before prctl took effect
  }
  if (o.unblock_signals) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
  }
  if (const int null = ::open("/dev/null", O_RDONLY); null >= 0) ::dup2(null, STDIN_FILENO);
  return 0;
}

int reap_group(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::kill(-pid, SIGKILL);  // a background process the child left in its group
  return status;
}

int kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  return reap_group(pid);
}

}  // namespace warplab::app
