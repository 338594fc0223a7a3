// repl/worker.cpp: forking, talking to and replacing the REPL's worker process
// (worker.hpp). The worker runs serve(): open the state, then one reply per request.
#include "app/repl/worker.hpp"

#include "app/cli/child_group.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "app/repl/eval.hpp"
#include "app/repl/protocol.hpp"
#include "sys/error.hpp"
#include "sys/output.hpp"

namespace warplab::app::repl {
namespace {

int g_interrupt_pipe[2] = {-1, -1};

// One byte per Ctrl-C: counting bytes is race-free, unlike a counter reset.
void on_interrupt(int) {
  const int saved = errno;
  [[maybe_unused]] const ssize_t n = ::write(g_interrupt_pipe[1], "i", 1);
  errno = saved;
}

// Output the worker's Lua code printed must reach the terminal before the reply does.
void flush_output() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return "worker died (signal " + std::to_string(WTERMSIG(status)) + ")";
  return "worker died (exit " + std::to_string(WEXITSTATUS(status)) + ")";
}

}  // namespace

void install_interrupt_handler() {
  if (g_interrupt_pipe[0] < 0 && ::pipe2(g_interrupt_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction sa = {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: libedit's read must return EINTR to clear the line
  sigaction(SIGINT, &sa, nullptr);
}

int interrupt_fd() { return g_interrupt_pipe[0]; }

int take_interrupts() {
  if (g_interrupt_pipe[0] < 0) return 0;
  int n = 0;
  char buf[64];
  for (ssize_t r; (r = ::read(g_interrupt_pipe[0], buf, sizeof buf)) > 0;) n += static_cast<int>(r);
  return n;
}

Worker::Worker(StateFactory make, Warm warm) : make_(std::move(make)), warm_(std::move(warm)) {}

Worker::~Worker() {
  if (alive()) reap(/*kill_first=*/true);
  // The spare is killed, not waited for: it may be inside cuInit, and leaving the REPL
  // must not wait on the driver (it dies with us in any case; init reaps it).
  if (spare_pid_ > 0) {
    ::close(spare_fd_);
    ::kill(-spare_pid_, SIGKILL);
    ::kill(spare_pid_, SIGKILL);
  }
}

void Worker::fork_worker(pid_t& pid_out, int& fd_out, bool spare) {
  // A socketpair, not two pipes: one descriptor each way, and a closed end shows as
  // POLLHUP/EOF on the other, which is how a dead worker is noticed.
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw Error(ErrorKind::internal,
                std::string("cannot create the REPL worker's socket: ") + std::strerror(errno));
  flush_output();  // or the child would flush our buffered output a second time
  // Not a reaper (child_group.hpp): what the worker's commands leave is the prompt's, which
  // reaps what has ended between requests; a worker adopting it would keep it a zombie,
  // since Lua waits only for what it started itself.
  const pid_t pid =
      fork_in_group({.die_with_parent = true, .group_dies_with_parent = true, .unblock_signals = false});
  if (pid < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    throw Error(ErrorKind::internal, std::string("cannot fork the REPL worker: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // In the worker, in its own process group (cli/child_group.hpp): the prompt decides
    // what a Ctrl-C means (interrupt, or kill when repeated); it never outlives the prompt.
    ::close(sv[0]);
    if (g_interrupt_pipe[0] >= 0) {
      ::close(g_interrupt_pipe[0]);
      ::close(g_interrupt_pipe[1]);
    }
    if (fd_ >= 0) ::close(fd_);  // the other workers' sockets are not this one's
    if (spare_fd_ >= 0) ::close(spare_fd_);
    serve(sv[1], make_, spare ? warm_ : Warm{});
  }
  ::close(sv[1]);
  pid_out = pid;
  fd_out = sv[0];
}

void Worker::keep_spare() {
  keep_spare_ = true;
  fork_spare();
}

// A spare is a head start, not a need: one that cannot be forked is simply not there.
void Worker::fork_spare() {
  if (!keep_spare_ || spare_pid_ > 0) return;
  try {
    fork_worker(spare_pid_, spare_fd_, true);
  } catch (const Error&) {
    spare_pid_ = spare_fd_ = -1;
  }
}

void Worker::start() {
  // The spare, when there is one: it has been getting ready since the last start, and
  // its "ready" waits in the socket. A spare that died meanwhile says so there, and a
  // fresh worker is forked instead.
  bool from_spare = false;
  if (spare_pid_ > 0) {
    pid_ = spare_pid_;
    fd_ = spare_fd_;
    spare_pid_ = spare_fd_ = -1;
    from_spare = true;
  } else {
    fork_worker(pid_, fd_, false);
  }
  death_.clear();
  evals_ = 0;

  // The first message says whether the state opened (select_target may fail: no device,
  // a bad profile); only then is the worker usable.
  const Reply hello = request(0, {});
  if (hello.status == Status::kDied && from_spare) return start();  // the spare died: a fresh one
  if (hello.status == Status::kOk) {
    fork_spare();  // the next restart's
    return;
  }
  if (hello.status == Status::kDied)
    throw Error(ErrorKind::internal, "the REPL worker " + death_.substr(7) + " while starting");
  // kError carries "<kind>\n<message>" (sys/error.hpp kind_name).
  const auto nl = hello.text.find('\n');
  const std::optional<ErrorKind> kind = kind_named(hello.text.substr(0, nl));
  throw Error(kind.value_or(ErrorKind::internal),
              nl == std::string::npos ? hello.text : hello.text.substr(nl + 1));
}

void Worker::restart() {
  if (alive()) reap(/*kill_first=*/true);
  start();
}

Reply Worker::eval(const std::string& chunk, bool final) {
  Reply r = request(final ? kEvalFinal : kEval, chunk);
  r.eval = evals_;  // the worker numbers its evaluations the same way (Evaluator::eval)
  return r;
}

Reply Worker::attrs(const std::string& pattern) { return request(kAttrs, pattern); }

Reply Worker::check_output(const std::string& path) { return request(kCheckOutput, path); }

std::vector<std::string> Worker::complete(const std::string& line) {
  const Reply r = request(kComplete, line);
  std::vector<std::string> out;
  if (r.status != Status::kOk) return out;
  for (size_t pos = 0; pos < r.text.size();) {
    const size_t nl = r.text.find('\n', pos);
    out.push_back(r.text.substr(pos, nl - pos));
    pos = nl == std::string::npos ? r.text.size() : nl + 1;
  }
  return out;
}

// Sends one request (type 0: none, just wait for the start-up message) and waits for
// its reply while forwarding Ctrl-C: the first as SIGINT, the next as SIGKILL.
Reply Worker::request(char type, const std::string& payload) {
  // What the worker started and left (`cmd &`, a daemon) is ours (reap_orphans): those
  // that have ended are reaped here, so none stays a zombie for the rest of the session.
  reap_exited({pid_, spare_pid_});
  if (!alive()) return {Status::kDied, death_};
  if (payload.size() > kMaxPayload)  // refused here: the worker and its state stay as they are
    return {Status::kError, "input of " + std::to_string(payload.size() >> 20) +
                                " MiB: the REPL takes at most 64 MiB per chunk (run a file with dofile)"};
  if (type != 0 && !write_message(fd_, type, payload)) {
    reap(/*kill_first=*/false);
    return {Status::kDied, death_};
  }
  if (type == kEval || type == kEvalFinal) ++evals_;
  int sent = 0;
  take_interrupts();  // a Ctrl-C typed before this request is not meant for it
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {interrupt_fd(), POLLIN, 0}};
    if (::poll(fds, interrupt_fd() >= 0 ? 2 : 1, -1) < 0) continue;  // EINTR: the pipe says why
    if (fds[1].revents & POLLIN)
      for (int n = take_interrupts(); n > 0; --n) ::kill(pid_, sent++ == 0 ? SIGINT : SIGKILL);
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    // End of file before a reply: the worker died (crash, os.exit, our SIGKILL).
    const std::optional<Message> m = read_message(fd_);
    if (!m) {
      reap(/*kill_first=*/false);
      return {Status::kDied, death_};
    }
    switch (const auto status = static_cast<Status>(m->type)) {
      case Status::kOk:
      case Status::kError:
      case Status::kIncomplete:
      case Status::kSyntax:
        return {status, m->payload};
      case Status::kLost:
        return lost_reply(m->payload);
      case Status::kDied:  // never sent
        break;
    }
    return {Status::kError, m->payload};  // a type byte that is no status: a bug, said as an error
  }
}

// Closes the socket and collects the worker's exit status for death(). Without
// kill_first the worker is already gone (or going), so its real status is kept.
void Worker::reap(bool kill_first) {
  ::close(fd_);
  fd_ = -1;
  const int status = kill_first ? kill_group(pid_) : reap_group(pid_);  // its group goes too
  // And what it started outside its group (`setsid`): ours now (reap_orphans), ended.
  kill_adopted(spare_pid_ > 0 ? std::vector<pid_t>{spare_pid_} : std::vector<pid_t>{}, pid_);
  death_ = describe(status);
  pid_ = -1;
}

// The worker never returns into the caller's stack: the prompt's objects (and stdio
// buffers) were copied by fork and must not be destroyed or flushed twice, hence _exit.
[[noreturn]] void serve(int fd, const StateFactory& make, const Warm& warm) {
  Evaluator::install_sigint();
  std::signal(SIGPIPE, SIG_IGN);
  bind::StatePtr state;
  try {
    state = make();
    if (warm) warm(state.get());
  } catch (const Error& e) {
    flush_output();
    write_message(fd, static_cast<char>(Status::kError), std::string(kind_name(e.kind())) + "\n" + e.what());
    ::_exit(0);
  } catch (const std::exception& e) {
    flush_output();
    write_message(fd, static_cast<char>(Status::kError), "internal\n" + std::string(e.what()));
    ::_exit(0);
  } catch (...) {  // a Lua error raised outside a protected call
    write_message(fd, static_cast<char>(Status::kError), "internal\nthe Lua state could not be opened");
    ::_exit(0);
  }
  Evaluator ev(state.get());
  flush_output();
  write_message(fd, static_cast<char>(Status::kOk), {});  // ready
  // One reply per request, after flushing what the chunk printed. A prompt that went
  // away closes the socket and ends this loop.
  while (const std::optional<Message> m = read_message(fd)) {
    Reply r;
    if (m->type == kEval || m->type == kEvalFinal) {
      r = ev.eval(m->payload, m->type == kEvalFinal);
      // A reply larger than the protocol carries is cut, never a dead worker.
      if (r.text.size() > kMaxPayload - 128)
        r.text = r.text.substr(0, kMaxPayload - 128) + "\n... (output cut at 64 MiB)";
    } else if (m->type == kComplete) {
      for (const auto& c : ev.complete(m->payload)) r.text += c + "\n";
      if (!r.text.empty()) r.text.pop_back();
    } else if (m->type == kAttrs) {
      r = ev.attrs(m->payload);
    } else if (m->type == kCheckOutput) {
      // The kernels and headers the session compiled were read here, and noted here.
      if (const auto why = sys::output_refusal(m->payload, sys::Replace::allowed)) r = {Status::kError, *why};
    } else {
      r = {Status::kError, "unknown request to the REPL worker"};
    }
    // A value whose text passes the frame limit is cut, not a reason to end the worker.
    const std::string cut = "\n... (cut: the text passed the REPL's 64 MiB limit)";
    if (r.text.size() > kMaxPayload) r.text.replace(kMaxPayload - cut.size(), std::string::npos, cut);
    flush_output();
    if (!write_message(fd, static_cast<char>(r.status), r.status == Status::kLost ? lost_payload(r) : r.text))
      break;
  }
  flush_output();
  // The prompt is gone (its end of the socket closed as it died, before its death signal
  // reaches us): what this worker started goes with it, not on with no parent.
  kill_children();
  if (::getpgrp() == ::getpid()) ::kill(0, SIGKILL);
  ::_exit(0);
}

}  // namespace warplab::app::repl
