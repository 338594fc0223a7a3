// watch/child.cpp: the child process of one watched run (child.hpp), and the feed files it
// leaves. A socket pair carries 'r' (ready) and, when the body returns, 'd' (done)
// from the child, and 'g' (go) from the watcher.
#include "app/watch/child.hpp"

#include "app/cli/child_group.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <system_error>

#include "sys/error.hpp"

#include "sys/read.hpp"
#include "sys/text.hpp"

namespace warplab::app::watch {

ChildRun::ChildRun(const Body& body, const std::vector<int>& close_fds) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw Error(ErrorKind::internal, std::string("cannot create a run's socket: ") + std::strerror(errno));
  std::fflush(nullptr);  // or the child would write our buffered output a second time
  forked_ = started_ = std::chrono::steady_clock::now();
  // A process group of its own (cli/child_group.hpp), gone with the watcher, the reaper of
  // what it starts (a `setsid` process too: ended when the run is); the watcher blocks the
  // signals it reads through signalfd, the run must not.
  pid_ = fork_in_group(
      {.die_with_parent = true, .group_dies_with_parent = true, .unblock_signals = true, .reaper = true});
  if (pid_ < 0) {
    const int err = errno;
    ::close(sv[0]);
    ::close(sv[1]);
    throw Error(ErrorKind::internal, std::string("cannot fork a run: ") + std::strerror(err));
  }
  if (pid_ == 0) {
    ::close(sv[0]);
    for (const int fd : close_fds) ::close(fd);
    std::signal(SIGPIPE, SIG_DFL);
    const int fd = sv[1];
    const Ready ready = [fd] {
      const char r = 'r';
      [[maybe_unused]] const ssize_t w = ::write(fd, &r, 1);
      char g = 0;
      ssize_t n;
      while ((n = ::read(fd, &g, 1)) < 0 && errno == EINTR) {
      }
      return n == 1 && g == 'g';
    };
    int rc = 70;  // kInternal: the body threw what it should have turned into a status
    try {
      rc = body(ready);
    } catch (...) {
    }
    std::fflush(nullptr);
    kill_children();  // nothing the run started outlives it (the watcher kills its group)
    const char d = 'd';
    [[maybe_unused]] const ssize_t w = ::send(fd, &d, 1, MSG_NOSIGNAL);
    ::_exit(rc);
  }
  ::close(sv[1]);
  fd_ = sv[0];
}

ChildRun::~ChildRun() {
  if (!status_) kill();
  if (fd_ >= 0) ::close(fd_);
}

bool ChildRun::ready() {
  if (ready_) return true;
  pollfd p = {fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
    char r = 0;
    ready_ = ::recv(fd_, &r, 1, MSG_DONTWAIT) == 1 && r == 'r';
  }
  return ready_;
}

void ChildRun::go() {
  if (went_) return;
  went_ = true;
  started_ = std::chrono::steady_clock::now();
  const char g = 'g';
  // MSG_NOSIGNAL: a child that already died makes this fail, not kill us with SIGPIPE.
  [[maybe_unused]] const ssize_t w = ::send(fd_, &g, 1, MSG_NOSIGNAL);
}

// WNOHANG: the watcher calls this on every wake-up (SIGCHLD, file events, timeouts),
// so one coalesced SIGCHLD can never leave a finished run unnoticed.
std::optional<int> ChildRun::finished() {
  if (status_) return status_;
  int st = 0;
  const pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = st;
    ::kill(-pid_, SIGKILL);  // a background process the run left in its group
  }
  return status_;
}

bool ChildRun::returned() {
  char buf[16];
  for (ssize_t n; status_ && (n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT)) > 0;)
    for (ssize_t i = 0; i < n; ++i) returned_ = returned_ || buf[i] == 'd';
  return returned_;
}

int ChildRun::kill() {
  if (status_) return *status_;
  status_ = kill_group(pid_);
  return *status_;
}

std::string answer_in_child(const std::function<std::string()>& ask) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return {};
  std::fflush(nullptr);  // or the child would write our buffered output a second time
  const pid_t pid = fork_in_group({.die_with_parent = true});  // a driver that hangs dies with us
  if (pid == 0) {
    ::close(p[0]);
    std::string answer;
    try {
      answer = ask();
    } catch (...) {  // no answer
    }
    [[maybe_unused]] const ssize_t w = ::write(p[1], answer.data(), answer.size());
    ::_exit(0);
  }
  ::close(p[1]);
  std::string answer;
  char buf[512];
  for (ssize_t n; pid > 0 && ((n = ::read(p[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR));)
    if (n > 0) answer.append(buf, static_cast<std::size_t>(n));
  ::close(p[0]);
  int st = 0;
  if (pid > 0) ::waitpid(pid, &st, 0);
  return answer;
}

std::string describe_status(int st) {
  if (WIFSIGNALED(st)) return "signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) + ")";
  return "exit " + std::to_string(WEXITSTATUS(st));
}

FeedFile read_feed_file(const std::string& path) {
  FeedFile r;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return r;  // the run wrote none
  // No size limit: the feed files are the run's own (a CUBIN may be megabytes).
  if (const auto e = sys::read_whole(path, r.text, SIZE_MAX)) r.problem = "cannot read " + path + ": " + *e;
  return r;
}

FeedFile take_feed_file(const std::string& path) {
  FeedFile r = read_feed_file(path);
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return r;
}

RunFiles read_deps_file(const std::string& path) {
  RunFiles out;
  const FeedFile r = read_feed_file(path);
  out.problem = r.problem;
  for (const std::string& line : sys::split(r.text, '\n')) {
    if (line.rfind("> ", 0) == 0) {
      std::error_code ec;
      out.written.insert(line.substr(2));
      if (const auto real = std::filesystem::weakly_canonical(line.substr(2), ec); !ec)
        out.written.insert(real.string());
    } else if (!line.empty()) {
      out.read.push_back(line);
    }
  }
  return out;
}

std::vector<std::string> files_to_watch(std::vector<std::string> read, const std::string& script, bool ok,
                                        const std::vector<std::string>& last) {
  read.push_back(script);
  if (!ok) read.insert(read.end(), last.begin(), last.end());
  std::set<std::string> once;
  std::erase_if(read, [&](const std::string& f) { return !once.insert(f).second; });
  return read;
}

}  // namespace warplab::app::watch
