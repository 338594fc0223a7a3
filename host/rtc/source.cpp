// source.cpp: reading kernel sources from disk (whole file, binary-exact), with one-
// sentence errors. Used by compile (for the main file) and by include resolution.
#include "rtc/source.hpp"

#include <cerrno>
#include <cstring>

#include "rtc/error.hpp"
#include "sys/read.hpp"
#include "sys/shown.hpp"

namespace warplab::rtc {

std::optional<std::string> read_file(const std::filesystem::path& path, std::string& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "it is a directory";
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    return "it is not a regular file";
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxSourceBytes)
    return "it is larger than 64 MiB";
  // Binary: the bytes hashed and compiled are exactly the file's (CRLF kept). A read error
  // (EIO) is said, never read as an empty source.
  return sys::read_whole(path.string(), out, kMaxSourceBytes);
}

Source load_source(const std::filesystem::path& path) {
  Source s;
  if (const auto why = read_file(path, s.text))
    throw Error("cannot read kernel source '" + sys::shown(path.string()) + "': " + *why);
  s.name = path.string();
  // Includes resolve against the absolute folder, so a later chdir cannot change them.
  std::error_code ec;
  const auto abs = std::filesystem::absolute(path, ec);
  s.dir = ec ? path.parent_path() : abs.parent_path();
  return s;
}

}  // namespace warplab::rtc
