// watch/signals.hpp: the signals `warplab watch` reads through a signalfd: SIGINT, SIGTERM,
// SIGHUP and SIGQUIT (leave) and SIGCHLD (a run ended), blocked while a Signals lives and
// restored after (its runs unblock them: child.hpp). NVRTC sets SIGINT to SIG_IGN at the
// start of each compile, which discards a pending SIGINT (one that comes during the
// compile stays pending): the watcher asks leave_pending() before its own compiles (the
// warm headers) and skips them. Linux only.
#pragma once
#include <signal.h>

namespace warplab::app::watch {

class Signals {
 public:
  Signals();  // throws Error (internal) when the signalfd cannot be made
  ~Signals();
  Signals(const Signals&) = delete;
  Signals& operator=(const Signals&) = delete;
  int fd() const { return fd_; }
  // Drains the signalfd; true when a signal asking us to leave arrived. SIGCHLD needs
  // no handling here: the loop checks the runs after every wake-up.
  bool leave();
  // True when a signal asking us to leave is waiting to be read (a blocked signal stays
  // pending until leave() reads it); reads nothing.
  static bool leave_pending();

 private:
  sigset_t set_, old_;
  int fd_ = -1;
};

}  // namespace warplab::app::watch
