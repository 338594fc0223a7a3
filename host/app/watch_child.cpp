// watch_child.cpp: the child process of one watched run (see watch_child.hpp).
#include "app/watch_child.hpp"

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
  // Built before fork: the child may only call async-signal-safe functions.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
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
  pid_ = ::fork();
  if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "cannot fork a run");
  if (pid_ == 0) {
    ::setpgid(0, 0);
    // The watcher blocks the signals it reads through signalfd; the run must not.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (const int null = ::open("/dev/null", O_RDONLY); null >= 0) ::dup2(null, STDIN_FILENO);
    ::execve(exe.c_str(), args.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid_, pid_);  // both sides, so kill(-pid) works from the first moment
}

ChildRun::~ChildRun() {
  if (!status_) kill();
}

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
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  int st = 0;
  while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {}
  status_ = st;
  return st;
}

std::string describe_status(int st) {
  if (WIFSIGNALED(st))
    return "signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) + ")";
  return "exit " + std::to_string(WEXITSTATUS(st));
}

std::vector<std::string> read_deps_file(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

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
