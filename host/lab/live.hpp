// live.hpp: live modules. A module compiled from a file remembers every file it was built
// from (the source and each header warplab resolved) by path, mtime, size and content
// hash; looking a kernel up after one of them changed recompiles the module. The hash
// decides, not the mtime alone: a save that leaves the bytes alone is no change.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace warplab::rtc {
struct CompileResult;
}

namespace warplab::lab {

struct ModuleSpec;

struct FileStamp {
  std::string path;
  std::filesystem::file_time_type mtime{};
  std::uintmax_t size = 0;
  std::string hash;  // rtc::content_hash of the bytes compiled
};

std::vector<FileStamp> stamp_files(const ModuleSpec& spec, const rtc::CompileResult& r);
// True when a file's bytes differ from its stamp (or it vanished). A file whose mtime or
// size moved but whose bytes hash the same gets its stamp refreshed, nothing more.
bool files_changed(std::vector<FileStamp>& stamps);

}  // namespace warplab::lab
