// output.cpp: see output.hpp. The inputs are kept by device and inode (a hard link, a
// symbolic link or ../x.lua name the same file) in one process-wide table under a mutex.
#include "sys/output.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "sys/shown.hpp"

namespace warplab::sys {
namespace {

using Key = std::pair<unsigned long long, unsigned long long>;  // device, inode

std::mutex& inputs_mutex() {
  static std::mutex m;
  return m;
}
std::map<Key, std::string>& inputs() {
  static std::map<Key, std::string> m;
  return m;
}

std::vector<NamedInput>& reserved() {  // under inputs_mutex()
  static std::vector<NamedInput> v;
  return v;
}

std::string quoted(const std::string& p) { return "'" + shown(p) + "'"; }

}  // namespace

std::string input_refusal(const std::string& path, const std::string& role) {
  return quoted(path) + " is " + role + ": warplab never writes over a file it reads";
}

void note_input(const std::string& path, const std::string& role) noexcept {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  try {
    const std::lock_guard<std::mutex> lock(inputs_mutex());
    inputs().emplace(Key{st.st_dev, st.st_ino}, role);  // the first role noted stays
  } catch (...) {
  }
}

void reserve_output(const std::string& path, const std::string& role) noexcept {
  if (path.empty()) return;
  try {
    const std::lock_guard<std::mutex> lock(inputs_mutex());
    reserved().push_back({path, role});
  } catch (...) {
  }
}

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code e1, e2, e3;
  return fs::absolute(a, e1).lexically_normal() == fs::absolute(b, e2).lexically_normal() ||
         fs::equivalent(a, b, e3);
}

std::optional<std::string> input_role(unsigned long long dev, unsigned long long ino) {
  const std::lock_guard<std::mutex> lock(inputs_mutex());
  const auto it = inputs().find(Key{dev, ino});
  if (it == inputs().end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> output_refusal(const std::string& path, Replace replace,
                                          const std::vector<NamedInput>& named) {
  namespace fs = std::filesystem;
  if (path.empty()) return std::string("an empty file name names no file");
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") return quoted(path) + " names a folder, not a file";
  // The folder it goes in: there, and a folder.
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0)
    return errno == ENOENT || errno == ENOTDIR
               ? "the folder " + quoted(dir) + " of " + quoted(path) + " does not exist"
               : "cannot reach the folder " + quoted(dir) + " of " + quoted(path) + ": " +
                     std::error_code(errno, std::generic_category()).message();
  if (!S_ISDIR(ds.st_mode)) return quoted(dir) + " in " + quoted(path) + " is not a folder";
  // An input named on the command line, by name (it may not exist yet) or as the same file.
  for (const NamedInput& in : named)
    if (same_file(path, in.path)) return input_refusal(path, in.role);
  {
    std::vector<NamedInput> outs;
    {
      const std::lock_guard<std::mutex> lock(inputs_mutex());
      outs = reserved();
    }
    for (const NamedInput& out : outs)
      if (same_file(path, out.path)) return quoted(path) + " is " + out.role + ": the script cannot write it";
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;  // a new file
    return "cannot reach " + quoted(path) + ": " + std::error_code(errno, std::generic_category()).message();
  }
  if (S_ISLNK(st.st_mode))
    return quoted(path) + " is a symbolic link: warplab neither writes through it nor replaces it";
  if (S_ISDIR(st.st_mode)) return quoted(path) + " names a folder, not a file";
  if (const auto role = input_role(st.st_dev, st.st_ino)) return input_refusal(path, *role);
  if (replace == Replace::never) return quoted(path) + " already exists";
  if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
    return quoted(path) + " is not a regular file";
  return std::nullopt;
}

}  // namespace warplab::sys
