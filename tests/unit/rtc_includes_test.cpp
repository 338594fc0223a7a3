// rtc_includes_test.cpp: warplab's own include resolution: relative and include-dir
// headers handed to NVRTC with their hashes, same-named headers in two folders kept
// apart, <warplab/...> found in kernels_src/include, commented-out includes ignored.
#include <gtest/gtest.h>

#include "rtc/compile.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
using warplab::test::ScratchDir;

namespace {
rtc::Source src(const std::string& name, const std::string& text) {
  rtc::Source s;
  s.name = name;
  s.text = text;
  return s;
}
rtc::Options sm90() {
  rtc::Options o;
  o.arch = "sm_90";
  return o;
}
}  // namespace

TEST(Includes, RelativeAndIncludeDirHeadersBecomeDependencies) {
  ScratchDir d;
  d.write("inc/limits.cuh", "#pragma once\n#define LIMIT 7\n");
  d.write("src/local.cuh", "#pragma once\n#include <limits.cuh>\n#define LOCAL (LIMIT * 2)\n");
  const auto main =
      d.write("src/main.cu", "#include \"local.cuh\"\n__global__ void k(int* p) { p[0] = LOCAL; }\n");
  rtc::Options o = sm90();
  o.include_dirs = {(d.path() / "inc").string()};
  const auto r = rtc::compile(rtc::load_source(main), o);
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.dependencies.size(), 2u);
  EXPECT_EQ(r.dependencies[0].path, std::filesystem::canonical(d.path() / "src/local.cuh"));
  EXPECT_EQ(r.dependencies[1].path, std::filesystem::canonical(d.path() / "inc/limits.cuh"));
  EXPECT_EQ(r.dependencies[1].hash, rtc::content_hash("#pragma once\n#define LIMIT 7\n"));
  EXPECT_NE(r.ptx.find("14"), std::string::npos);  // LOCAL folded to 14
}

TEST(Includes, SameNameInTwoFoldersDoesNotCollide) {
  // NVRTC matches header names literally; warplab must keep a/common.cuh and
  // b/common.cuh apart.
  ScratchDir d;
  d.write("a/common.cuh", "#define A_VALUE 11\n");
  d.write("b/common.cuh", "#define B_VALUE 22\n");
  d.write("a/a.cuh", "#include \"common.cuh\"\n");
  d.write("b/b.cuh", "#include \"common.cuh\"\n");
  const auto main = d.write("main.cu",
                            "#include \"a/a.cuh\"\n#include \"b/b.cuh\"\n"
                            "__global__ void k(int* p) { p[0] = A_VALUE; p[1] = B_VALUE; }\n");
  const auto r = rtc::compile(rtc::load_source(main), sm90());
  EXPECT_TRUE(r.ok) << rtc::format_diagnostics(r, 0, false);
  EXPECT_EQ(r.dependencies.size(), 4u);
}

TEST(Includes, WarplabHeadersResolveFromKernelsSrc) {
  const auto r = rtc::compile(
      src("ids.cu",
          "#include <warplab/ids.cuh>\n__global__ void k(unsigned* p) { p[0] = warplab::lane_id(); }\n"),
      sm90());
  ASSERT_TRUE(r.ok) << r.log;
  ASSERT_EQ(r.dependencies.size(), 1u);
  EXPECT_EQ(r.dependencies[0].path.filename(), "ids.cuh");
  EXPECT_EQ(r.dependencies[0].path.parent_path().filename(), "warplab");
  EXPECT_NE(r.ptx.find("%laneid"), std::string::npos);
}

TEST(Includes, CommentedOutIncludesAreIgnored) {
  const auto r =
      rtc::compile(src("c.cu",
                       "// #include \"missing1.cuh\"\n/* a comment\n#include \"missing2.cuh\"\n*/\n"
                       "__global__ void k() {}\n"),
                   sm90());
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_TRUE(r.dependencies.empty());
}

TEST(Includes, ContentHashTracksBytes) {
  EXPECT_EQ(rtc::content_hash("abc"), rtc::content_hash("abc"));
  EXPECT_NE(rtc::content_hash("abc"), rtc::content_hash("abd"));
  EXPECT_EQ(rtc::content_hash("").size(), 16u);
}

// NVRTC has no C or C++ standard library headers: a missing one says what to use instead.
TEST(Includes, AStandardHeaderNotFoundNamesWhatToUse) {
  ScratchDir cuda;
  cuda.write("cuda/std/cstdint", "");
  cuda.write("cuda/std/cassert", "");
  const std::vector<std::filesystem::path> dirs = {cuda.path()};
  EXPECT_EQ(
      rtc::standard_header_note("cassert", dirs),
      "<cassert> is a C++ standard header, which NVRTC does not have: assert() is built in, so no include "
      "is needed (or include <cuda/std/cassert>)");
  EXPECT_EQ(rtc::standard_header_note("assert.h", dirs).rfind("<assert.h> is a C standard header", 0), 0u);
  EXPECT_EQ(
      rtc::standard_header_note("stdint.h", dirs),
      "<stdint.h> is a C standard header, which NVRTC does not have: include libcu++'s <cuda/std/cstdint> "
      "instead");
  EXPECT_EQ(
      rtc::standard_header_note("vector", dirs),
      "<vector> is a C++ standard header, which NVRTC does not have, and libcu++ has no <cuda/std/vector>: "
      "device code cannot use it");
  EXPECT_EQ(rtc::standard_header_note("my_header.h", dirs), "");
  EXPECT_EQ(rtc::standard_header_note("cuda/std/cassert", dirs), "");
  EXPECT_EQ(rtc::standard_header_note("cfoo", dirs), "");
}

TEST(Includes, ACcclHeaderTheToolkitLacksSaysSo) {
  ScratchDir cuda;
  cuda.write("cuda/std/cassert", "");
  const std::vector<std::filesystem::path> dirs = {cuda.path()};
  EXPECT_EQ(
      rtc::standard_header_note("cuda/barrier", dirs),
      "<cuda/barrier> is one of the CUDA toolkit's CCCL headers (libcu++, CUB, Thrust), which the toolkit's "
      "include dirs (" +
          cuda.path().string() +
          ") do not have: install the toolkit's CCCL (its include/cccl folder), or set CUDA_HOME to a "
          "toolkit that has it");
  EXPECT_NE(rtc::standard_header_note("cub/cub.cuh", {})
                .find("no CUDA include dir was found to hold (set CUDA_HOME)"),
            std::string::npos);
  EXPECT_EQ(rtc::standard_header_note("cuda/std/cassert", dirs), "");  // present: nothing to say
  EXPECT_EQ(rtc::standard_header_note("cudax/thing", dirs), "");
}

TEST(Includes, IncludingCassertCompilesToADiagnosticWithTheNote) {
  const auto r =
      rtc::compile(src("k.cu", "#include <cassert>\n__global__ void k(int* p) { assert(p); }\n"), sm90());
  ASSERT_FALSE(r.ok);
  ASSERT_EQ(r.errors(), 1u) << r.log;
  ASSERT_EQ(r.diagnostics[0].notes.size(), 1u);
  EXPECT_NE(r.diagnostics[0].notes[0].find("assert() is built in"), std::string::npos)
      << r.diagnostics[0].notes[0];
  // ... and without the include, assert is there.
  EXPECT_TRUE(rtc::compile(src("k.cu", "__global__ void k(int* p) { assert(p); }\n"), sm90()).ok);
}
