// live.cpp: see live.hpp. One stat per file per lookup; files are read and hashed only
// when a stat says something moved.
#include "lab/live.hpp"

#include "lab/module.hpp"
#include "rtc/includes.hpp"
#include "rtc/source.hpp"

namespace fs = std::filesystem;

namespace warplab::lab {
namespace {

FileStamp stamp(const std::string& path, std::string hash) {
  FileStamp s{path, {}, 0, std::move(hash)};
  std::error_code ec;
  s.mtime = fs::last_write_time(path, ec);
  s.size = fs::file_size(path, ec);
  return s;
}

}  // namespace

std::vector<FileStamp> stamp_files(const ModuleSpec& spec, const rtc::CompileResult& r) {
  std::vector<FileStamp> out;
  if (spec.path.empty()) return out;  // inline sources have no file to follow
  out.push_back(stamp(spec.path, rtc::content_hash(spec.source.text)));
  for (const auto& d : r.dependencies) out.push_back(stamp(d.path.string(), d.hash));
  return out;
}

bool files_changed(std::vector<FileStamp>& stamps) {
  for (FileStamp& s : stamps) {
    std::error_code e1, e2;
    const auto mtime = fs::last_write_time(s.path, e1);
    const auto size = fs::file_size(s.path, e2);
    if (e1 || e2) return true;  // deleted or unreadable: let the recompile say why
    if (mtime == s.mtime && size == s.size) continue;
    std::string bytes;
    if (rtc::read_file(s.path, bytes)) return true;  // unreadable: let the recompile say why
    if (rtc::content_hash(bytes) != s.hash) return true;
    s.mtime = mtime;  // touched, not changed
    s.size = size;
  }
  return false;
}

}  // namespace warplab::lab
