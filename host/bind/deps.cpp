// deps.cpp: appends dependency paths to $WARPLAB_DEPS_FILE (see deps.hpp). One
// O_APPEND write per line, so the file stays line-complete even if the run crashes.
#include "bind/deps.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

namespace warplab::bind {

void record_dependency(const std::string& path) {
  const char* file = std::getenv("WARPLAB_DEPS_FILE");
  if (!file || !*file || path.empty()) return;
  std::error_code ec;
  const std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec || abs.find('\n') != std::string::npos) return;  // a newline would split the record

  // A script may compile the same file many times; the watcher needs it once.
  static std::mutex mu;
  static std::set<std::string> seen;
  const std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert(abs).second) return;

  const int fd = ::open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const std::string line = abs + "\n";
  [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
  ::close(fd);
}

}  // namespace warplab::bind
