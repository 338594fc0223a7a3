// source.hpp: a kernel source as warplab compiles it: display name, text, the directory
// its relative includes start from, and the line offset of an inline source inside a Lua
// file. Plain data plus the loader; no NVRTC.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace warplab::rtc {

struct Source {
  std::string name;           // display path, used in diagnostics: "kernels_src/x.cu"
  std::string text;           // the bytes handed to NVRTC (after include rewriting)
  std::filesystem::path dir;  // where `#include "..."` starts; empty: the current dir
  // For a source written inline in a Lua file: its first line is line line_offset + 1 of
  // `name`, so a diagnostic at source line L is reported at line L + line_offset.
  int line_offset = 0;
};

// Reads a file; name = the path as given, dir = its parent. Throws rtc::Error with one
// sentence ("cannot read kernel source 'x.cu': No such file or directory").
Source load_source(const std::filesystem::path& path);

// Kernel sources and headers are read whole: larger files are refused with a sentence.
inline constexpr std::uintmax_t kMaxSourceBytes = 64ull << 20;

// Reads a whole file into `out`: nullopt, or the reason when it cannot (a folder, a device
// or pipe, a file over kMaxSourceBytes).
std::optional<std::string> read_file(const std::filesystem::path& path, std::string& out);

}  // namespace warplab::rtc
