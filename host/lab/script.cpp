// script.cpp: a script file checked and read before Lua loads it (see script.hpp).
#include "lab/script.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sys/read.hpp"
#include "sys/shown.hpp"

namespace warplab::lab {
namespace {

// nullopt when the file's first byte can be read, else the OS reason (a file of /proc
// whose read fails with EIO opens fine).
std::optional<std::string> unreadable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  char c = 0;
  const ssize_t n = ::read(fd, &c, 1);
  const int e = errno;
  ::close(fd);
  if (n < 0) return std::strerror(e);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> script_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  std::string why;
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    why = ec.message();  // a name too long, a loop of links, no permission on a folder
  else if (!fs::exists(st))
    why = "not found";
  else if (fs::is_directory(st))
    why = "a folder, not a script";
  else if (!fs::is_regular_file(st))
    why = "not a regular file";
  else if (fs::file_size(path, ec) > static_cast<std::uintmax_t>(kMaxScriptBytes))
    why = "larger than 64 MiB";
  else if (const auto e = unreadable(path))
    why = "unreadable: " + *e;
  else
    return std::nullopt;
  return "script '" + sys::shown(path) + "': " + why;
}

std::optional<std::string> read_script(const std::string& path, std::string& text) {
  if (auto why = script_problem(path)) return why;
  if (const auto e = sys::read_whole(path, text, static_cast<std::size_t>(kMaxScriptBytes)))
    return "script '" + sys::shown(path) + "': unreadable: " + *e;
  // A #! first line is a comment, as for the lua interpreter.
  if (text.rfind("#", 0) == 0) text.insert(0, "--");
  return std::nullopt;
}

}  // namespace warplab::lab
