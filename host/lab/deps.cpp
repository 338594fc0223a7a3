// deps.cpp: appends dependency paths to $WARPLAB_DEPS_FILE (see deps.hpp). One
// O_APPEND write per line, so the file stays line-complete even if the run crashes.
#include "lab/deps.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

namespace warplab::lab {

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

}  // namespace warplab::lab

namespace warplab::lab {

void record_code(const std::string& module_name, const std::string& ptx, const char* cubin,
                 std::size_t cubin_bytes) {
  const char* dir = std::getenv("WARPLAB_CODE_DIR");
  if (!dir || !*dir) return;
  static int n = 0;
  std::string stem = std::filesystem::path(module_name).filename().string();
  for (char& c : stem)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  const std::string base = std::string(dir) + "/" + std::to_string(++n) + "." + stem;
  auto write = [](const std::string& path, const char* data, std::size_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return;
    [[maybe_unused]] const ssize_t w = ::write(fd, data, size);
    ::close(fd);
  };
  write(base + ".ptx", ptx.data(), ptx.size());
  write(base + ".cubin", cubin, cubin_bytes);
}

}  // namespace warplab::lab
