// rtc_kernels_test.cpp: every .cu file under kernels_src compiles, with no error, for
// sm_80 and sm_90. Globbed at run time, so a new kernel file is covered without a change.
#include <gtest/gtest.h>

#include <algorithm>

#include "rtc/compile.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
namespace fs = std::filesystem;

TEST(KernelsSrc, EveryFileCompilesForSm80AndSm90) {
  const fs::path root = warplab::test::source_root() / "kernels_src";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".cu") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no .cu files under " << root;
  for (const fs::path& f : files) {
    for (const char* arch : {"sm_80", "sm_90"}) {
      rtc::Options o;
      o.arch = arch;
      const auto r = rtc::compile(rtc::load_source(f), o);
      EXPECT_TRUE(r.ok) << f << " for " << arch << ":\n" << rtc::format_diagnostics(r, 0, false);
      EXPECT_EQ(r.errors(), 0u) << f;
      EXPECT_FALSE(r.entries.empty()) << f << " defines no kernel";
      EXPECT_EQ(r.kernels.size(), r.entries.size()) << f;
    }
  }
}
