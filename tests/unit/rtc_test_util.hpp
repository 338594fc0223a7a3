// rtc_test_util.hpp: helpers shared by the rtc_*_test.cpp files: a scratch directory
// that cleans up after itself, file writing, and paths into the source tree.
#pragma once
#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

namespace warplab::test {

inline std::filesystem::path source_root() { return WARPLAB_SOURCE_DIR; }
inline std::filesystem::path bad_kernels() { return source_root() / "tests/data/kernels/bad"; }

// A fresh directory under the system temp dir, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> n{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("warplab-rtc-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return dir_; }
  // Writes `text` to dir/rel (creating folders) and returns the full path.
  std::filesystem::path write(const std::string& rel, const std::string& text) const {
    const auto p = dir_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace warplab::test
