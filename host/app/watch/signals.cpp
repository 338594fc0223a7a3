// watch/signals.cpp: see signals.hpp.
#include "app/watch/signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include "app/cli/command.hpp"

namespace warplab::app::watch {

namespace {
constexpr int kLeave[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
}

Signals::Signals() {
  sigemptyset(&set_);
  for (const int s : kLeave) sigaddset(&set_, s);
  sigaddset(&set_, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &set_, &old_);
  fd_ = ::signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) throw Error(ErrorKind::internal, "cannot create a signalfd");
}

Signals::~Signals() {
  ::close(fd_);
  ::sigprocmask(SIG_SETMASK, &old_, nullptr);
}

bool Signals::leave() {
  bool out = false;
  signalfd_siginfo si;
  while (::read(fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) out = out || si.ssi_signo != SIGCHLD;
  return out;
}

bool Signals::leave_pending() {
  sigset_t pending;
  sigemptyset(&pending);
  ::sigpending(&pending);
  for (const int s : kLeave)
    if (sigismember(&pending, s) == 1) return true;
  return false;
}

}  // namespace warplab::app::watch
