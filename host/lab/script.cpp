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

// Empty when the file's first byte can be read, else the OS reason (a file of /proc
// whose read fails with EIO opens fine).
std::string readable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  char c = 0;
  const ssize_t n = ::read(fd, &c, 1);
  const int e = errno;
  ::close(fd);
  return n < 0 ? std::strerror(e) : std::string();
}

}  // namespace

std::string script_problem(const std::string& path) {
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
  else if (const std::string e = readable(path); !e.empty())
    why = "unreadable: " + e;
  return why.empty() ? why : "script '" + sys::shown(path) + "': " + why;
}

bool read_script(const std::string& path, std::string& text, std::string& why) {
  why = script_problem(path);
  if (why.empty()) {
    if (const std::string e = sys::read_whole(path, text, static_cast<std::size_t>(kMaxScriptBytes));
        !e.empty())
      why = "script '" + sys::shown(path) + "': unreadable: " + e;
  }
  if (!why.empty()) return false;
  // A #! first line is a comment, as for the lua interpreter.
  if (text.rfind("#", 0) == 0) text.insert(0, "--");
  return true;
}

}  // namespace warplab::lab
