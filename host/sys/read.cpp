// read.cpp: see read.hpp.
#include "sys/read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sys/fd.hpp"

namespace warplab::sys {

namespace {

// Reads up to `max_bytes` into `out`; `more` says whether the file holds more than that.
std::optional<std::string> read_upto(const std::string& path, std::string& out, std::size_t max_bytes,
                                     bool& more) {
  out.clear();
  more = false;
  // Opened without waiting (a FIFO's open waits for a writer), then refused unless it is a
  // regular file: whatever the caller checked before, the path may have changed since.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return std::strerror(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return S_ISDIR(st.st_mode) ? "a folder, not a file" : "not a regular file";
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  char buf[1 << 16];
  for (;;) {
    // One byte past the limit tells a file of exactly max_bytes from a longer one.
    const std::size_t left = max_bytes - out.size();
    const ssize_t n = ::read(fd.get(), buf, left < sizeof buf ? left + 1 : sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      out.clear();
      return std::strerror(e);
    }
    if (n == 0) return std::nullopt;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      out.append(buf, max_bytes - out.size());
      more = true;
      return std::nullopt;
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace

std::optional<std::string> read_whole(const std::string& path, std::string& out, std::size_t max_bytes) {
  bool more = false;
  std::optional<std::string> e = read_upto(path, out, max_bytes, more);
  if (!e && more) {
    out.clear();
    e = "larger than " + std::to_string(max_bytes) + " bytes";
  }
  return e;
}

std::optional<std::string> read_head(const std::string& path, std::string& out, std::size_t max_bytes) {
  bool more = false;
  return read_upto(path, out, max_bytes, more);
}

}  // namespace warplab::sys
