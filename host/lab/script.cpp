// script.cpp: a script file checked and read before Lua loads it (see script.hpp).
// Depends on lab/script.hpp.
#include "lab/script.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace warplab::lab {

std::string script_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  std::string why;
  if (!fs::exists(st))
    why = "not found";
  else if (fs::is_directory(st))
    why = "a folder, not a script";
  else if (!fs::is_regular_file(st))
    why = "not a regular file";
  else if (fs::file_size(path, ec) > static_cast<std::uintmax_t>(kMaxScriptBytes))
    why = "larger than 64 MiB";
  else if (std::ifstream in(path, std::ios::binary); !in)
    why = std::string("unreadable: ") + std::strerror(errno);
  return why.empty() ? why : "script '" + path + "': " + why;
}

bool read_script(const std::string& path, std::string& text, std::string& why) {
  why = script_problem(path);
  if (why.empty()) {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
    if (in.bad()) why = "script '" + path + "': unreadable: " + std::strerror(errno);
  }
  if (!why.empty()) return false;
  // A #! first line is a comment, as for the lua interpreter.
  if (text.rfind("#", 0) == 0) text.insert(0, "--");
  return true;
}

}  // namespace warplab::lab
