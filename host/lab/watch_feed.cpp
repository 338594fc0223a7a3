// watch_feed.cpp: appends dependency paths to $WARPLAB_DEPS_FILE, and writes the code,
// launch and device files into $WARPLAB_CODE_DIR (see watch_feed.hpp). One O_APPEND
// write per line, so a file stays line-complete even if the run crashes; whole files
// through the one writer (sys/write.hpp). Never through a symbolic link (O_NOFOLLOW), whatever a folder
// shared with others holds, and only into a folder watch made (code_dir).
#include "lab/watch_feed.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "cu/profile.hpp"
#include "rtc/compile.hpp"
#include "sys/write.hpp"

namespace warplab::lab {

namespace {

// One line of the run's feed file, `prefix` + the absolute path, once per process and kind.
void append_line_once(const std::string& path, const char* prefix) {
  const char* file = std::getenv("WARPLAB_DEPS_FILE");
  if (!file || !*file || path.empty()) return;
  std::error_code ec;
  const std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec || abs.find('\n') != std::string::npos) return;  // a newline would split the line

  // A script may compile the same file many times; the watcher needs it once.
  static std::mutex mu;
  static std::set<std::string> seen;
  // The feed file is the run's own: a file that holds something when the run first writes
  // (WARPLAB_DEPS_FILE naming the script or a kernel appended a line to it), or one of the
  // files fed (by device and inode), is left alone.
  static std::set<std::pair<dev_t, ino_t>> read;
  static bool first = true, own = false;
  const std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert(prefix + abs).second) return;
  struct stat st {};
  const bool is_read = *prefix == '\0';  // a file written is not one the feed may not be
  if (is_read && ::stat(abs.c_str(), &st) == 0) read.insert({st.st_dev, st.st_ino});

  // O_NONBLOCK: opening a FIFO for writing waits for a reader (WARPLAB_DEPS_FILE naming one
  // hung the run); a regular file only is written.
  const int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0) return;
  const bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (first) own = ok && st.st_size == 0;
  first = false;
  if (own && ok && !read.count({st.st_dev, st.st_ino})) {
    const std::string line = prefix + abs + "\n";
    [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
  }
  ::close(fd);
}

}  // namespace

void feed_dependency(const std::string& path) { append_line_once(path, ""); }

void feed_written(const std::string& path) { append_line_once(path, "> "); }

}  // namespace warplab::lab

namespace warplab::lab {
namespace {

// One line added to a feed file (O_APPEND: lines stay whole).
void append_line(const std::string& path, const std::string& line) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // a FIFO planted there: not ours to feed
    ::close(fd);
    return;
  }
  [[maybe_unused]] const ssize_t w = ::write(fd, line.data(), line.size());
  ::close(fd);
}

// A whole feed file, replaced (best effort, as every feed: the watcher copes without one).
void write_feed_file(const std::string& path, std::string_view bytes) {
  (void)sys::write_file(path, bytes, sys::WriteOptions{sys::Replace::allowed, sys::Sync::none, 0600});
}

}  // namespace

const char* code_dir() {
  const char* d = std::getenv("WARPLAB_CODE_DIR");  // set in watch's forked child: read each time
  if (!d || !*d) return nullptr;
  struct stat st {};
  const std::string name = std::filesystem::path(d).filename().string();
  if (name.rfind("warplab-code-", 0) != 0 || ::lstat(d, &st) != 0 || !S_ISDIR(st.st_mode) ||
      st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return nullptr;
  return d;
}

std::string code_stem(const std::string& module_name) {
  std::string stem = std::filesystem::path(module_name).filename().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return stem.empty() ? "_" : stem;
}

void feed_code(const std::string& module_name, const rtc::CompileResult& r) {
  const char* dir = code_dir();
  if (!dir) return;
  static int n = 0;
  const std::string base = std::string(dir) + "/" + std::to_string(++n) + "." + code_stem(module_name);
  write_feed_file(base + ".ptx", r.ptx);
  write_feed_file(base + ".cubin", std::string_view(r.cubin.data(), r.cubin.size()));
  std::string spills;
  for (const rtc::KernelResources& k : r.kernels)
    spills += k.mangled + " " + std::to_string(k.spill_store_bytes.value_or(-1)) + " " +
              std::to_string(k.spill_load_bytes.value_or(-1)) + "\n";
  write_feed_file(base + ".spills", spills);
}

void feed_launch(const std::string& module_name, const std::string& mangled,
                 const LastLaunch& last) noexcept {
  if (!last.threads) return;
  const char* dir = code_dir();
  if (!dir) return;
  try {  // called from a destructor: nothing may escape
    const std::string line = code_stem(module_name) + " " + mangled + " " + std::to_string(last.threads) +
                             " " + std::to_string(last.dynamic_shared) + "\n";
    append_line(std::string(dir) + "/launches", line);
  } catch (...) {
  }
}

void feed_device(const cu::DeviceSnapshot& d) {
  const char* dir = code_dir();
  if (!dir) return;
  const std::string text = cu::profile_text(d);
  write_feed_file(std::string(dir) + "/device.json", text);
}

}  // namespace warplab::lab
