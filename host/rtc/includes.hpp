// includes.hpp: warplab's own include resolution. Every `#include "..."` (relative to the
// including file, then the search dirs) and every `<...>` found in the search dirs (which
// hold <warplab/...>) is read here and handed to NVRTC as a named header, so the bytes
// compiled are known exactly (the cache hashes them). Other `<...>` go to NVRTC's -I path.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rtc/source.hpp"

namespace warplab::rtc {

// A header warplab resolved and handed to NVRTC.
struct Dependency {
  std::filesystem::path path;  // canonical, absolute
  std::string display;         // shown in diagnostics: relative to the cwd when below it
  std::string hash;            // content_hash of the file's bytes as read
};

// An include nobody could open: NVRTC reports it, warplab adds where it looked.
struct MissingInclude {
  std::string file;  // NVRTC's name of the including file
  int line = 0;      // 1-based line of the directive there
  std::string spelled;
  bool angle = false;
  std::vector<std::string> searched;  // directories tried, in order
  // Found but refused, as the sentence compile() reports at the #include line ("cannot
  // read the header ...: it is larger than 64 MiB", includes nested too deep) instead of
  // letting NVRTC open the file itself.
  std::string refused;
};

struct ResolvedIncludes {
  // The main source with each resolved directive rewritten to name its header by
  // canonical path: NVRTC matches header names literally, so two "common.cuh" in two
  // folders must not collide. Only the directive lines change.
  std::string main_text;
  std::vector<Dependency> deps;           // in discovery order
  std::vector<std::string> header_names;  // include names for nvrtcCreateProgram
  std::vector<std::string> header_texts;  // their bytes (rewritten the same way)
  std::vector<MissingInclude> missing;
};

// How deep includes may nest (GCC's and Clang's default): deeper chains are refused, so
// the resolver's recursion stays bounded.
inline constexpr int kMaxIncludeDepth = 200;

// `search_dirs`: the user's include dirs, then warplab's include dir.
ResolvedIncludes resolve_includes(const Source& src, const std::vector<std::filesystem::path>& search_dirs);

// For an `#include <NAME>` nothing could open: when NAME is a C or C++ standard header,
// which NVRTC does not have, one sentence naming what to use instead (what NVRTC has built
// in: assert, the math functions; else libcu++'s <cuda/std/...> when one of `cuda_dirs`
// holds it); for a CCCL header (<cuda/barrier>, <cub/...>) none of `cuda_dirs` holds, that the
// toolkit lacks CCCL and what to install; "" for any other name.
std::string standard_header_note(const std::string& spelled,
                                 const std::vector<std::filesystem::path>& cuda_dirs);

// FNV-1a, 64 bits, as 16 lower-case hex digits: a change detector, not a security hash.
std::string content_hash(std::string_view bytes);

// A path as the user should see it: relative to the current directory when below it.
std::string display_path(const std::filesystem::path& p);

}  // namespace warplab::rtc
