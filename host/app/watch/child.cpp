// watch/child.cpp: the child process of one watched run (child.hpp), and the dependency
// file it leaves. Depends on cli/child_group.hpp (fork into a group, kill, reap).
#include "app/watch/child.hpp"

#include "app/cli/child_group.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

namespace warplab::app::watch {

ChildRun::ChildRun(const std::string& exe, const std::vector<std::string>& argv, const Env& env) {
  // argv and the environment are built here, in the parent: between fork and exec the
  // child may only call async-signal-safe functions, and allocating is not one.
  // Built before fork: the child may only call async-signal-safe functions.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  // Our environment minus the variables `env` overrides, then `env`.
  for (char** e = environ; *e; ++e) {
    const std::string s = *e;
    bool replaced = false;
    for (const auto& [k, v] : env) replaced = replaced || s.rfind(k + "=", 0) == 0;
    if (!replaced) env_strings.push_back(s);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  started_ = std::chrono::steady_clock::now();
  // A process group of its own (cli/child_group.hpp); the watcher blocks the signals it
  // reads through signalfd, the run must not.
  pid_ = fork_in_group({.die_with_parent = false, .unblock_signals = true});
  if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "cannot fork a run");
  if (pid_ == 0) {
    ::execve(exe.c_str(), args.data(), envp.data());
    ::_exit(127);  // as a shell reports "command not found"
  }
}

ChildRun::~ChildRun() {
  if (!status_) kill();
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

int ChildRun::kill() {
  if (status_) return *status_;
  status_ = kill_group(pid_);
  return *status_;
}

std::string describe_status(int st) {
  if (WIFSIGNALED(st)) return "signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) + ")";
  return "exit " + std::to_string(WEXITSTATUS(st));
}

std::vector<std::string> read_deps_file(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// mkstemp: a unique name created atomically, so concurrent watchers never share one.
TempFile::TempFile() {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/warplab-deps-XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot create " + tmpl);
  ::close(fd);
  path_ = tmpl;
}

TempFile::~TempFile() { ::unlink(path_.c_str()); }

}  // namespace warplab::app::watch
