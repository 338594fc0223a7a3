// toolkit.cpp: run-time discovery of the CUDA and warplab header directories. The binary
// is carried to other machines (the GPU host keeps CUDA elsewhere), so the paths baked in
// at build time are only a late fallback.
#include "rtc/toolkit.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <cstdlib>
#include <string>

namespace warplab::rtc {
namespace fs = std::filesystem;
namespace {

bool is_cuda_include(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(dir / "cooperative_groups.h", ec);
}

// The directory of the libnvrtc actually loaded: its headers match its version best.
// lib64/ -> ../include; targets/<arch>/lib -> ../include as well.
fs::path include_next_to_nvrtc() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path lib = fs::canonical(info.dli_fname, ec);
  if (ec) return {};
  return lib.parent_path().parent_path() / "include";
}

// WARPLAB_CUDA_INCLUDE may be a CMake list ("a;b"); each element is a candidate.
std::vector<fs::path> baked_cuda_includes() {
  std::vector<fs::path> out;
#ifdef WARPLAB_CUDA_INCLUDE
  std::string all = WARPLAB_CUDA_INCLUDE;
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t end = all.find(';', start);
    const std::string one = all.substr(start, end == std::string::npos ? end : end - start);
    if (!one.empty()) out.emplace_back(one);
    if (end == std::string::npos) break;
    start = end + 1;
  }
#endif
  return out;
}

}  // namespace

std::vector<fs::path> cuda_include_dirs() {
  std::vector<fs::path> candidates;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) candidates.push_back(fs::path(v) / "include");
  candidates.push_back(include_next_to_nvrtc());
  for (auto& p : baked_cuda_includes()) candidates.push_back(p);
  candidates.emplace_back("/usr/local/cuda/include");
  // The first directory that really holds the CUDA headers wins; a stale $CUDA_HOME
  // without them is skipped instead of breaking every compile.
  for (const fs::path& dir : candidates) {
    if (!is_cuda_include(dir)) continue;
    std::vector<fs::path> out{dir};
    std::error_code ec;
    if (fs::is_directory(dir / "cccl", ec)) out.push_back(dir / "cccl");
    return out;
  }
  return {};
}

fs::path kernels_dir() {
  std::error_code ec;
  if (const char* v = std::getenv("WARPLAB_KERNELS_DIR"); v && *v && fs::is_directory(v, ec))
    return fs::path(v);
  // build/warplab -> ./kernels_src; an installed bin/warplab -> ../share/warplab/.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& p : {exe.parent_path().parent_path() / "kernels_src",
                              exe.parent_path().parent_path() / "share/warplab/kernels_src"})
      if (fs::is_directory(p / "include", ec)) return p;
  }
#ifdef WARPLAB_KERNELS_DIR
  if (fs::is_directory(WARPLAB_KERNELS_DIR, ec)) return fs::path(WARPLAB_KERNELS_DIR);
#endif
  return {};
}

fs::path warplab_include_dir() {
  const fs::path k = kernels_dir();
  std::error_code ec;
  if (k.empty() || !fs::is_directory(k / "include", ec)) return {};
  return k / "include";
}

}  // namespace warplab::rtc
