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
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
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
