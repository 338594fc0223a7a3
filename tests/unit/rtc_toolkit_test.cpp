// rtc_toolkit_test.cpp: finding the CUDA headers and kernels_src at run time, since the
// binary runs on machines where the build's paths do not exist: environment overrides
// win, a stale override is skipped, cccl/ comes along when present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "rtc/toolkit.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
namespace fs = std::filesystem;
using warplab::test::ScratchDir;

namespace {

// Sets an environment variable for one scope, restoring the old value after.
class EnvVar {
 public:
  EnvVar(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvVar() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST(Toolkit, CudaHomeWinsWhenItHoldsTheHeaders) {
  ScratchDir d;
  d.write("include/cooperative_groups.h", "// fake\n");
  fs::create_directories(d.path() / "include/cccl");
  EnvVar home("CUDA_HOME", d.path().string());
  const auto dirs = rtc::cuda_include_dirs();
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], d.path() / "include");
  EXPECT_EQ(dirs[1], d.path() / "include/cccl");
}

TEST(Toolkit, StaleCudaHomeIsSkipped) {
  ScratchDir d;  // no headers in it
  EnvVar home("CUDA_HOME", d.path().string());
  EnvVar path("CUDA_PATH", (d.path() / "nope").string());
  const auto dirs = rtc::cuda_include_dirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_TRUE(fs::exists(dirs[0] / "cooperative_groups.h")) << dirs[0];
  EXPECT_NE(dirs[0], d.path() / "include");
}

TEST(Toolkit, KernelsDirFromEnvironmentOrNextToTheBinary) {
  EXPECT_TRUE(fs::exists(rtc::kernels_dir() / "warps/thread_ids.cu")) << rtc::kernels_dir();
  EXPECT_TRUE(fs::exists(rtc::warplab_include_dir() / "warplab/ids.cuh"));
  ScratchDir d;
  fs::create_directories(d.path() / "include");
  EnvVar k("WARPLAB_KERNELS_DIR", d.path().string());
  EXPECT_EQ(rtc::kernels_dir(), d.path());
  EXPECT_EQ(rtc::warplab_include_dir(), d.path() / "include");
}
