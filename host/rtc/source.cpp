// source.cpp: reading kernel sources from disk (whole file, binary-exact), with one-
// sentence errors. Used by compile (for the main file) and by include resolution.
#include "rtc/source.hpp"

#include <cerrno>
#include <cstring>

#include "rtc/error.hpp"
#include "sys/read.hpp"
#include "sys/shown.hpp"

namespace warplab::rtc {

bool read_file(const std::filesystem::path& path, std::string& out, std::string* why) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (why) *why = "it is a directory";
    return false;
  }
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    if (why) *why = "it is not a regular file";
    return false;
  }
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxSourceBytes) {
    if (why) *why = "it is larger than 64 MiB";
    return false;
  }
  // Binary: the bytes hashed and compiled are exactly the file's (CRLF kept). A read error
  // (EIO) is said, never read as an empty source.
  if (std::string e = sys::read_whole(path.string(), out, kMaxSourceBytes); !e.empty()) {
    if (why) *why = std::move(e);
    return false;
  }
  return true;
}

Source load_source(const std::filesystem::path& path) {
  Source s;
  std::string why;
  if (!read_file(path, s.text, &why))
    throw Error("cannot read kernel source '" + sys::shown(path.string()) + "': " + why);
  s.name = path.string();
  // Includes resolve against the absolute folder, so a later chdir cannot change them.
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  s.dir = ec ? path.parent_path() : abs.parent_path();
  return s;
}

}  // namespace warplab::rtc
