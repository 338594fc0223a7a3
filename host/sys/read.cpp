// read.cpp: see read.hpp.
#include "sys/read.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sys/fd.hpp"

namespace warplab::sys {

std::optional<std::string> read_whole(const std::string& path, std::string& out, std::size_t max_bytes) {
  out.clear();
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::strerror(errno);
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      out.clear();
      return std::strerror(e);
    }
    if (n == 0) return std::nullopt;
    if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
      out.clear();
      return "larger than " + std::to_string(max_bytes) + " bytes";
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace warplab::sys
