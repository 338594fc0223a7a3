// cli/cleanup.cpp: the private folder and its keeper process (cleanup.hpp). The keeper is
// told "+PGID" and "-PGID" lines; at end of file it kills the groups still listed, then
// removes the folder. The folder's file "lock" carries an flock(2) lock from before it has
// that name until the last of its holders is gone. POSIX only.
#include "app/cli/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "app/cli/child_group.hpp"
#include "app/cli/command.hpp"
#include "sys/temp.hpp"

namespace warplab::app {
namespace {

constexpr int kMaxGroups = 64;  // a watch has a run and a standby: a few at a time

// The keeper's life: read the groups, and at end of file kill them and remove `dir`. Only
// system calls and fixed buffers: it is a child forked without exec.
[[noreturn]] void keep(int in, const char* dir) {
  const int died = parent_died_signal();
  for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) std::signal(s, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);  // the terminal's Ctrl-C goes to the command's group, not here
  pid_t groups[kMaxGroups] = {};
  char line[32];
  int len = 0;
  char buf[256];
  for (;;) {
    const ssize_t n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] != '\n') {
        if (len < static_cast<int>(sizeof line) - 1) line[len++] = buf[i];
        continue;
      }
      line[len] = '\0';
      const pid_t g = static_cast<pid_t>(std::strtol(line + 1, nullptr, 10));
      for (pid_t& slot : groups) {
        if (line[0] == '+' && slot == 0) {
          slot = g;
          break;
        }
        if (line[0] == '-' && slot == g) {
          slot = 0;
          break;
        }
      }
      len = 0;
    }
  }
  // parent_died_signal() first: a child forked with `group_dies_with_parent` (child_group.hpp)
  // then ends what it started outside its group (it is their reaper) before its group goes;
  // SIGKILL for whatever is left after a second.
  for (const pid_t g : groups)
    if (g > 0) ::kill(-g, died);
  for (int round = 0; round < 100; ++round) {
    bool left = false;
    for (const pid_t g : groups) left = left || (g > 0 && ::kill(-g, 0) == 0);
    if (!left) break;
    timespec t{0, 10 * 1000 * 1000};
    ::nanosleep(&t, nullptr);
  }
  for (const pid_t g : groups)
    if (g > 0) ::kill(-g, SIGKILL);
  if (*dir) remove_tree(dir);
  ::_exit(0);
}

void tell(int fd, char sign, pid_t pgid) {
  if (fd < 0 || pgid <= 0) return;
  char msg[32];
  const int n = std::snprintf(msg, sizeof msg, "%c%d\n", sign, static_cast<int>(pgid));
  [[maybe_unused]] const ssize_t w = ::write(fd, msg, static_cast<size_t>(n));  // < PIPE_BUF: whole
}

// A lock that only this folder's holders have: a file made under a random name, locked,
// then renamed to "lock", so a folder's "lock" is locked from the moment it exists. -1
// when it cannot be made (the folder is then never taken for a stale one).
int lock_folder(const std::string& dir) {
  std::string tmpl = dir + "/lock-XXXXXX";
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::rename(tmpl.c_str(), (dir + "/lock").c_str()) != 0) {
    ::unlink(tmpl.c_str());
    ::close(fd);
    return -1;
  }
  return fd;
}

// Removes the folders `root`/`prefix`XXXXXX of this user whose lock nobody holds: their
// command and its keeper are gone (both killed at once), and nobody else removes them.
// A folder without its lock yet (one being made now) is left alone.
void remove_stale(const std::string& root, const std::string& prefix) {
  DIR* d = ::opendir(root.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string path = root + "/" + name;
    const int dir = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) continue;
    struct stat st {};
    const int lock = ::fstat(dir, &st) == 0 && st.st_uid == ::geteuid()
                         ? ::openat(dir, "lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                         : -1;
    if (lock >= 0 && ::flock(lock, LOCK_EX | LOCK_NB) == 0) remove_tree(path.c_str());
    if (lock >= 0) ::close(lock);
    ::close(dir);
  }
  ::closedir(d);
}

// The constructor's failure: its folder goes, and the sentence is thrown.
[[noreturn]] void give_up(const std::string& dir, int lock, const char* what) {
  const int err = errno;
  if (!dir.empty()) remove_tree(dir.c_str());
  if (lock >= 0) ::close(lock);
  throw Error(ErrorKind::internal, std::string(what) + std::strerror(err));
}

}  // namespace

bool remove_tree(const char* path) {
  DIR* d = ::opendir(path);
  if (!d) return ::unlink(path) == 0 || errno == ENOENT;
  bool ok = true;
  while (const dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    char child[4096];
    if (std::snprintf(child, sizeof child, "%s/%s", path, e->d_name) >= static_cast<int>(sizeof child)) {
      ok = false;
      continue;
    }
    struct stat st {};
    if (::lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
      ok = remove_tree(child) && ok;
    else
      ok = (::unlink(child) == 0 || errno == ENOENT) && ok;
  }
  ::closedir(d);
  return (::rmdir(path) == 0 || errno == ENOENT) && ok;
}

Cleanup::Cleanup(const std::string& what) {
  const std::string prefix = "warplab-" + what + "-";
  sys::TempFolder t = sys::make_temp_folder(prefix);  // a bad TMPDIR: /tmp; neither: none
  dir_ = std::move(t.path);
  note_ = std::move(t.note);
  if (!dir_.empty() && dir_[0] != '/') {  // a relative TMPDIR: what children get must not depend on a folder
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd)) dir_ = std::string(cwd) + "/" + dir_;
  }
  if (!dir_.empty()) {
    lock_ = lock_folder(dir_);
    remove_stale(dir_.substr(0, dir_.rfind('/')), prefix);  // ours is locked: left alone
  }
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) give_up(dir_, lock_, "cannot create a pipe: ");
  std::fflush(nullptr);  // or the keeper would hold a copy of our buffered output
  keeper_ = ::fork();
  if (keeper_ < 0) {
    ::close(p[0]);
    ::close(p[1]);
    give_up(dir_, lock_, "cannot fork: ");
  }
  if (keeper_ == 0) {
    // Only the read end (as 3) and the lock (as 4) stay open: another descriptor of ours
    // (a terminal, a socket, the pipe's write end) held here would keep it alive or the
    // keeper waiting.
    const int in = ::fcntl(p[0], F_DUPFD_CLOEXEC, 10);
    const int lock = lock_ >= 0 ? ::fcntl(lock_, F_DUPFD_CLOEXEC, 10) : -1;
    ::dup2(in, 3);
    if (lock >= 0) ::dup2(lock, 4);
    ::close_range(lock >= 0 ? 5 : 4, ~0U, 0);
    const int null = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
    if (null > 2) ::close(null);  // (3 and 4 are taken)
    keep(3, dir_.c_str());
  }
  ::close(p[0]);
  fd_ = p[1];
}

Cleanup::~Cleanup() {
  if (!dir_.empty()) remove_tree(dir_.c_str());
  if (lock_ >= 0) ::close(lock_);
  ::close(fd_);  // end of file: the keeper kills what is still listed (nothing) and goes
  int st = 0;
  while (::waitpid(keeper_, &st, 0) < 0 && errno == EINTR) {
  }
}

void Cleanup::adopt_group(pid_t pgid) { tell(fd_, '+', pgid); }
void Cleanup::forget_group(pid_t pgid) { tell(fd_, '-', pgid); }

}  // namespace warplab::app
