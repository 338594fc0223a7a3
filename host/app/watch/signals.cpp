// watch/signals.cpp: see signals.hpp. Depends on cli/command.hpp (Failure).
#include "app/watch/signals.hpp"

#include <sys/signalfd.h>
#include <unistd.h>

#include "app/cli/command.hpp"

namespace warplab::app::watch {

Signals::Signals() {
  sigemptyset(&set_);
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&set_, s);
  ::sigprocmask(SIG_BLOCK, &set_, &old_);
  fd_ = ::signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd_ < 0) throw Failure(kInternal, "cannot create a signalfd");
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

}  // namespace warplab::app::watch
