// write.cpp: see write.hpp. Every step is a call on the folder's descriptor (openat,
// renameat2, unlinkat), so the folder checked is the folder written, and nothing at the
// target's name is ever opened for writing except a device or FIFO the caller may replace.
#include "sys/write.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>  // renameat2, RENAME_NOREPLACE (glibc 2.28)
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>

#include "sys/fd.hpp"
#include "sys/output.hpp"

namespace warplab::sys {
namespace {

constexpr std::size_t kNameMax = 255;    // NAME_MAX on every Linux file system we meet
constexpr std::size_t kSuffix = 5 + 16;  // ".tmp." and 16 hex digits
constexpr std::size_t kStem = kNameMax - kSuffix;

std::string quoted(const std::string& p) { return "'" + p + "'"; }

// 64 unpredictable bits: getrandom, else (no entropy yet, an old kernel) the clock, the
// pid and a counter, which are at least unique; O_EXCL makes a guessed name harmless.
std::uint64_t random64() {
  std::uint64_t v = 0;
  if (::getrandom(&v, sizeof v, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof v)) return v;
  static std::atomic<std::uint64_t> n{0};
  const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
  return static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull ^
         (static_cast<std::uint64_t>(::getpid()) << 32) ^ n++;
}

WriteResult fail(WriteResult::Status s, int err, std::string message) {
  return WriteResult{s, err, std::move(message)};
}

WriteResult os_failure(int err, const std::string& shown, bool had_old) {
  std::string why = err == ENXIO ? "no process is reading that FIFO" : std::strerror(err);
  return fail(WriteResult::Status::failed, err,
              "cannot write " + quoted(shown) + ": " + why + (had_old ? " (the old file is unchanged)" : ""));
}

// All of `bytes`, through short writes and signals.
int write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// A character device or FIFO the caller may replace is written into: replacing
// /dev/null with a file is never what anyone means.
WriteResult write_into_device(int dir_fd, const std::string& name, std::string_view bytes,
                              const std::string& shown) {
  const Fd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return os_failure(errno, shown, false);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
    return fail(WriteResult::Status::not_file, 0, quoted(shown) + " changed while warplab wrote it");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);  // a slow reader is waited for
  if (const int err = write_all(fd.get(), bytes)) return os_failure(err, shown, false);
  return {};
}

// Puts `tmp` at `name`: replacing whatever is there, or only where nothing is.
int publish(int dir_fd, const std::string& tmp, const std::string& name, Replace replace) {
  if (replace == Replace::allowed)
    return ::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) == 0 ? 0 : errno;
  if (::renameat2(dir_fd, tmp.c_str(), dir_fd, name.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return errno;
  // A file system without RENAME_NOREPLACE: a hard link fails with EEXIST just as well.
  if (::linkat(dir_fd, tmp.c_str(), dir_fd, name.c_str(), 0) == 0) {
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    return 0;
  }
  if (errno == EEXIST) return EEXIST;
  // Neither (vfat): look, then rename. Only a writer racing this one can slip in between.
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return EEXIST;
  return ::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) == 0 ? 0 : errno;
}

// While a temporary file exists, a signal that would end the process (Ctrl-C, a kill, a
// closed terminal) removes it before the process ends as the signal says: no
// "<name>.tmp.<hex>" is left in the person's folder. Only signals whose action is the
// default are caught, only for that moment, and one writer at a time (another thread's
// write meanwhile goes unguarded, as before).
constexpr int kEnding[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2};
std::atomic<bool> g_guarding{false};
volatile sig_atomic_t g_tmp_set = 0;
int g_tmp_dir = -1;
char g_tmp_name[kNameMax + 1];

extern "C" void remove_temp_and_end(int sig) {
  if (g_tmp_set) ::unlinkat(g_tmp_dir, g_tmp_name, 0);  // async-signal-safe, as the rest here
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered once this handler returns: the default action, as without us
}

class TempGuard {
 public:
  // Catches the ending signals (their action the default) before the file is made.
  TempGuard() {
    bool idle = false;
    if (!g_guarding.compare_exchange_strong(idle, true)) return;
    owner_ = true;
    struct sigaction sa {};
    sa.sa_handler = remove_temp_and_end;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < std::size(kEnding); ++i) {
      struct sigaction cur {};
      if (::sigaction(kEnding[i], nullptr, &cur) == 0 && cur.sa_handler == SIG_DFL &&
          !(cur.sa_flags & SA_SIGINFO))
        installed_[i] = ::sigaction(kEnding[i], &sa, &old_[i]) == 0;
    }
  }
  // The file `tmp` in `dir_fd` exists now and is ours: the handler removes it from here on.
  void arm(int dir_fd, const std::string& tmp) {
    if (!owner_ || tmp.size() > kNameMax) return;
    std::memcpy(g_tmp_name, tmp.c_str(), tmp.size() + 1);
    g_tmp_dir = dir_fd;
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the name before the flag
    g_tmp_set = 1;
  }
  // Once the file is renamed or removed: the actions as they were.
  ~TempGuard() {
    if (!owner_) return;
    g_tmp_set = 0;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    for (std::size_t i = 0; i < std::size(kEnding); ++i)
      if (installed_[i]) ::sigaction(kEnding[i], &old_[i], nullptr);
    g_guarding.store(false);
  }
  TempGuard(const TempGuard&) = delete;
  TempGuard& operator=(const TempGuard&) = delete;

 private:
  bool owner_ = false;
  bool installed_[std::size(kEnding)] = {};
  struct sigaction old_[std::size(kEnding)]{};
};

}  // namespace

std::string temp_name_for(const std::string& name) {
  static const char* hex = "0123456789abcdef";
  std::string out = name.substr(0, kStem) + ".tmp.";
  const std::uint64_t r = random64();
  for (int i = 15; i >= 0; --i) out += hex[(r >> (4 * i)) & 0xf];
  return out;
}

WriteResult write_file_at(int dir_fd, const std::string& name, std::string_view bytes,
                          const WriteOptions& opts, const std::string& shown) {
  using S = WriteResult::Status;
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    return fail(S::not_file, 0, quoted(shown) + " names a folder, not a file");
  // What is at the target now decides what may happen to it.
  struct stat old {};
  bool had_old = false;
  if (::fstatat(dir_fd, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(old.st_mode))
      return fail(S::link, 0,
                  quoted(shown) + " is a symbolic link: warplab neither writes through it nor replaces it");
    if (S_ISDIR(old.st_mode)) return fail(S::not_file, 0, quoted(shown) + " is a folder");
    if (const auto role = input_role(old.st_dev, old.st_ino))
      return fail(S::input, 0, input_refusal(shown, *role));
    if (opts.replace == Replace::never) return fail(S::exists, EEXIST, quoted(shown) + " already exists");
    if (S_ISCHR(old.st_mode) || S_ISFIFO(old.st_mode)) return write_into_device(dir_fd, name, bytes, shown);
    if (!S_ISREG(old.st_mode)) return fail(S::not_file, 0, quoted(shown) + " is not a regular file");
    // A file its owner made read-only stays so: the rename could replace it, open() could not.
    if (::faccessat(dir_fd, name.c_str(), W_OK, AT_EACCESS) != 0) return os_failure(errno, shown, true);
    had_old = true;
  } else if (errno != ENOENT) {
    return os_failure(errno, shown, false);
  }

  // The temporary file: a fresh name, never an existing file or a link planted there; a
  // signal that ends the process while it exists removes it first (TempGuard).
  std::string tmp;
  Fd fd;
  TempGuard guard;
  for (int attempt = 0; attempt < 100 && !fd; ++attempt) {
    tmp = temp_name_for(name);
    fd = Fd(::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, opts.mode));
    if (!fd && errno != EEXIST) return os_failure(errno, shown, had_old);
  }
  if (!fd) return os_failure(EEXIST, shown, had_old);
  guard.arm(dir_fd, tmp);  // once it is ours: never another's file of that name
  if (had_old) {           // the replacement keeps the old file's permissions (and owner, where allowed)
    ::fchmod(fd.get(), old.st_mode & 07777);
    if ((old.st_uid != ::geteuid() || old.st_gid != ::getegid()) &&
        ::fchown(fd.get(), old.st_uid, old.st_gid) != 0) {
      // not allowed to give it away: the new file is the writer's, as any new file is
    }
  }
  int err = write_all(fd.get(), bytes);
  if (!err && opts.sync == Sync::durable && ::fsync(fd.get()) != 0) err = errno;
  if (::close(fd.release()) != 0 && !err) err = errno;  // NFS reports some failures here
  if (!err) err = publish(dir_fd, tmp, name, opts.replace);
  if (err) {
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    if (err == EEXIST && opts.replace == Replace::never)
      return fail(S::exists, EEXIST, quoted(shown) + " already exists");
    return os_failure(err, shown, had_old);
  }
  if (opts.sync == Sync::durable) ::fsync(dir_fd);  // the rename itself; some file systems refuse: fine
  return {};
}

WriteResult write_file(const std::string& path, std::string_view bytes, const WriteOptions& opts) {
  const std::filesystem::path p(path);
  const std::string name = p.filename().string();
  if (path.empty()) return fail(WriteResult::Status::failed, ENOENT, "no file name given");
  if (name.empty() || name == "." || name == "..")
    return fail(WriteResult::Status::not_file, 0, quoted(path) + " names a folder, not a file");
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const Fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd) return os_failure(errno, path, false);
  return write_file_at(dir_fd.get(), name, bytes, opts, path);
}

}  // namespace warplab::sys
