// serve/run.cpp: `run SCRIPT --serve` and `run SCRIPT --html FILE` (cli/page.hpp's
// run_with_page): the run in a child process of its own group (as watch's runs), its output
// captured for the page; then the page written (never over a file the run read) and, with
// --serve, served until Ctrl-C. Ctrl-C during the run ends the run and this process, as it
// ends a plain `run`.
#include <fcntl.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "app/cli/child_group.hpp"
#include "app/cli/cleanup.hpp"
#include "app/cli/command.hpp"
#include "app/cli/page.hpp"
#include "app/serve/html.hpp"
#include "sys/read.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// Whether two paths name one file: by device and inode when both exist, else by their
// absolute, normalized paths.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ec;
  return std::filesystem::absolute(a, ec).lexically_normal() ==
         std::filesystem::absolute(b, ec).lexically_normal();
}

// A page warplab wrote: its opening bytes name it (page.html's generator line).
bool our_page(const std::string& path) {
  std::string head;
  return !sys::read_head(path, head, 2048) && head.rfind("<!DOCTYPE html>", 0) == 0 &&
         head.find(serve::kGenerator) != std::string::npos;
}

// Why --html must not replace `path`, or nullopt: a file the run read or wrote (its record,
// `deps`, says), or any file there but a page warplab wrote (a run's record cannot name
// every file it read: a data file opened by the script is not in it).
std::optional<std::string> html_refused(const std::string& path, const std::string& deps) {
  std::string record;  // (a record that cannot be read: the rule below still holds)
  if (!deps.empty() && sys::read_whole(deps, record, 64u << 20)) record.clear();
  for (const std::string& line : sys::split(record, '\n')) {
    const bool wrote = line.rfind("> ", 0) == 0;
    const std::string file = wrote ? line.substr(2) : line;
    if (!file.empty() && same_file(path, file))
      return "that is " + file + (wrote ? ", which the run wrote" : ", which the run read");
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || our_page(path))
    return std::nullopt;  // nothing there, or what the writer refuses in its own words
  return "that file is there and is not a page warplab wrote (remove it, or name another file)";
}

// The signals that end the command (and SIGCHLD, to wake when the run ends), read through a
// signalfd; blocked while this lives (the run's child unblocks them).
class Signals {
 public:
  Signals() {
    sigemptyset(&set_);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&set_, s);
    ::sigprocmask(SIG_BLOCK, &set_, &old_);
    fd_ = ::signalfd(-1, &set_, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd_ < 0) throw Error(ErrorKind::internal, "cannot create a signalfd");
  }
  ~Signals() {
    ::close(fd_);
    ::sigprocmask(SIG_SETMASK, &old_, nullptr);
  }
  int fd() const { return fd_; }
  // Drains the signalfd: the signal asking us to leave, or 0.
  int leave() {
    int out = 0;
    signalfd_siginfo si;
    while (::read(fd_, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
      if (si.ssi_signo != SIGCHLD) out = static_cast<int>(si.ssi_signo);
    return out;
  }

 private:
  sigset_t set_, old_;
  int fd_ = -1;
};

std::string ended(int st, double seconds) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f s", seconds);
  if (WIFSIGNALED(st))
    return "ended by signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) + ") after " +
           secs;
  return "exit " + std::to_string(WEXITSTATUS(st)) + " after " + secs;
}

struct Outcome {
  int code = kOk;
  int signal = 0;  // a signal that asked us to leave: raised again once all is cleaned up
};

Outcome run_and_show(const Globals& g, const PageOptions& o, const PreparedRun& r) {
  // The keeper first, while there is no thread: the run's group and its records go with us
  // however we end.
  Cleanup keep("run");
  Signals sig;  // before the server's thread, which inherits the mask
  Page page(o, r.script, keep.dir());
  page.begin_run(1, "");
  std::unique_ptr<PageCapture> cap = page.capture();
  if (!cap) throw Error(ErrorKind::internal, "cannot make the pipes for the run's output");
  const std::string deps = keep.dir().empty() ? "" : keep.dir() + "/deps";
  const auto start = std::chrono::steady_clock::now();
  // A file or pipe on stdin is the run's, as in a plain run (a terminal is not: the run is
  // not in the terminal's foreground group, and would be stopped reading it).
  const int input = ::isatty(STDIN_FILENO) ? -1 : ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  const pid_t pid = fork_in_group({.die_with_parent = true, .unblock_signals = true});  // as watch's runs
  if (pid < 0) throw Error(ErrorKind::internal, std::string("cannot start the run: ") + std::strerror(errno));
  if (pid == 0) {
    if (input >= 0) ::dup2(input, STDIN_FILENO);  // (fork_in_group gave it /dev/null)
    ::close(sig.fd());
    ::close(keep.fd());
    cap->in_child();
    if (deps.empty())
      ::unsetenv("WARPLAB_DEPS_FILE");
    else
      ::setenv("WARPLAB_DEPS_FILE", deps.c_str(), 1);  // what the run reads (lab/watch_feed.hpp)
    const int rc = run_command([&] {
      return run_prepared(g, r, [&] {
        cap->redirect();
        return true;
      });
    });
    std::fflush(nullptr);
    ::_exit(rc);
  }
  keep.adopt_group(pid);
  if (input >= 0) ::close(input);
  cap->forked();
  Outcome out;
  int st = 0;
  for (;;) {
    pollfd f[3] = {{sig.fd(), POLLIN, 0}, {cap->out_fd(), POLLIN, 0}, {cap->err_fd(), POLLIN, 0}};
    ::poll(f, 3, -1);
    cap->pump(false);
    if ((out.signal = sig.leave()) != 0) {
      st = kill_group(pid);
      break;
    }
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      ::kill(-pid, SIGKILL);  // what the run left in its group
      break;
    }
  }
  keep.forget_group(pid);
  cap->pump(true);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int code = WIFEXITED(st) ? WEXITSTATUS(st) : kFailed;
  page.end_run(code == kOk                                    ? "ok"
               : (code == kCompileError || code == kNoDevice) ? "stopped"
                                                              : "failed",
               ended(st, secs));
  if (out.signal) return out;
  if (WIFSIGNALED(st)) std::fprintf(stderr, "warplab: the run %s\n", ended(st, secs).c_str());
  out.code = code;

  if (!o.html.empty()) {
    if (const auto why = html_refused(o.html, deps)) {
      std::fprintf(stderr, "warplab: --html %s: %s; the page was not written\n", o.html.c_str(),
                   why->c_str());
      out.code = kBadInput;
      return out;
    }
    if (const std::string why = page.write_html(o.html); !why.empty()) {
      std::fprintf(stderr, "warplab: --html: %s\n", why.c_str());
      out.code = kBadInput;
      if (!o.live()) return out;
    } else if (!g.opts.quiet) {
      std::fprintf(stderr, "warplab: the page is in %s\n", o.html.c_str());
    }
  }
  if (o.live()) {
    std::fprintf(stderr, "warplab: the run is over; its page stays at %s until Ctrl-C\n", page.url().c_str());
    for (;;) {
      pollfd f = {sig.fd(), POLLIN, 0};
      ::poll(&f, 1, -1);
      if (sig.leave()) break;
    }
  }
  return out;
}

}  // namespace

int run_with_page(const Globals& g, const PageOptions& o, const PreparedRun& r) {
  if (!o.html.empty() && same_file(o.html, r.script))
    throw Error(ErrorKind::bad_input,
                "--html " + o.html + ": that is the script this run reads; name another file for the page");
  if (!o.html.empty())  // said before the run as well as after: no run for nothing
    if (const auto why = html_refused(o.html, ""))
      throw Error(ErrorKind::bad_input, "--html " + o.html + ": " + *why + "; nothing was run");
  const Outcome out = run_and_show(g, o, r);
  if (out.signal) {  // as a plain run stopped by it: gone by the signal, after our cleanup
    std::signal(out.signal, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, out.signal);
    ::sigprocmask(SIG_UNBLOCK, &one, nullptr);
    ::raise(out.signal);
  }
  return out.code;
}

}  // namespace warplab::app
