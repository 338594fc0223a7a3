// cli/child_group.cpp: forking into a process group of one's own, and killing and reaping
// that group (child_group.hpp). POSIX (fork, setpgid, prctl, waitpid) only.
#include "app/cli/child_group.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

namespace warplab::app {

namespace {

// Calls `f(pid, pgid)` for each child of this process, from /proc (each process's stat:
// "PID (COMM) STATE PPID PGRP ..."). Without allocating or stdio, so that a signal handler
// may use it. Returns how many children there were.
template <class F>
int each_child(F f) {
  const pid_t self = ::getpid();
  const int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  int n = 0;
  alignas(8) char buf[8192];
  for (long got; (got = ::syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0;) {
    for (long off = 0; off < got;) {
      const auto* d = reinterpret_cast<const dirent64*>(buf + off);
      off += d->d_reclen;
      pid_t pid = 0;
      const char* c = d->d_name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0) continue;
      char path[40] = "/proc/";
      char* p = path + 6;
      for (const char* s = d->d_name; *s && p < path + 30; ++s) *p++ = *s;
      for (const char* s = "/stat"; *s; ++s) *p++ = *s;
      *p = '\0';
      const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char st[512];
      const ssize_t len = ::read(fd, st, sizeof st - 1);
      ::close(fd);
      if (len <= 0) continue;
      st[len] = '\0';
      const char* r = nullptr;  // the last ')': a name may hold ')' and spaces
      for (const char* s = st; *s; ++s)
        if (*s == ')') r = s;
      if (!r || r[1] != ' ' || !r[2] || r[3] != ' ') continue;
      long fields[2] = {0, 0};  // PPID, PGRP
      const char* s = r + 4;
      for (long& v : fields) {
        for (; *s >= '0' && *s <= '9'; ++s) v = v * 10 + (*s - '0');
        if (*s == ' ') ++s;
      }
      if (fields[0] != self) continue;
      ++n;
      f(pid, static_cast<pid_t>(fields[1]));
    }
  }
  ::close(dir);
  return n;
}

void pause_ms(long ms) {
  timespec t{0, ms * 1000000};
  while (::nanosleep(&t, &t) < 0 && errno == EINTR) {
  }
}

// The child's parent_died_signal(): what it started goes, then its whole group, this
// process with it.
void kill_own_group(int) {
  kill_children();
  ::kill(0, SIGKILL);
}

}  // namespace

void reap_orphans() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }

int parent_died_signal() { return SIGRTMIN + 2; }

void kill_adopted(const std::vector<pid_t>& keep, pid_t group) {
  const pid_t own = ::getpgrp();
  for (int round = 0; round < 200; ++round) {  // 5 ms apart: a second at most
    int adopted = 0;
    each_child([&](pid_t pid, pid_t pgid) {
      if (pgid == own || std::find(keep.begin(), keep.end(), pid) != keep.end()) return;
      ++adopted;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, WNOHANG);
    });
    const bool group_gone = group <= 0 || (::kill(-group, 0) < 0 && errno == ESRCH);
    if (adopted == 0 && group_gone) return;
    pause_ms(5);
  }
}

void reap_exited(const std::vector<pid_t>& keep) {
  const pid_t own = ::getpgrp();
  each_child([&](pid_t pid, pid_t pgid) {
    if (pgid != own && std::find(keep.begin(), keep.end(), pid) == keep.end())
      ::waitpid(pid, nullptr, WNOHANG);
  });
}

void kill_children() {
  for (int round = 0; round < 200; ++round) {
    const int n = each_child([](pid_t pid, pid_t) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, WNOHANG);
    });
    if (n == 0) return;
    pause_ms(5);
  }
}

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
      sig = parent_died_signal();
      struct sigaction sa = {};
      sa.sa_handler = kill_own_group;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
      sigset_t died;
      sigemptyset(&died);
      sigaddset(&died, sig);
      ::sigprocmask(SIG_UNBLOCK, &died, nullptr);
    }
    ::prctl(PR_SET_PDEATHSIG, sig);
    if (::getppid() != parent) ::_exit(0);  // the parent died before prctl took effect
  }
  if (o.reaper) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
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
