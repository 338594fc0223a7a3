// rtc_pch_test.cpp: headers kept warm (rtc/pch.hpp). A source that opens with the kept
// headers compiles with the PCH and gives the same PTX, cubin, resources and diagnostics
// as without; a changed header byte, other options or other opening directives mean no
// PCH and never a stale header (NVRTC alone would reuse it); a child forked from a warm
// process compiles with its PCH; what cannot be kept says why. Each test runs in its own
// process (gtest_discover_tests), so each starts with nothing kept.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "rtc/compile.hpp"
#include "rtc/pch.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
using warplab::test::ScratchDir;

namespace {

// Cooperative groups (the headers that cost) and a header of the user's own.
std::string kernel(int v, const std::string& extra = {}) {
  return "// k.cu: a cooperative-groups reduction\n"
         "#include <cooperative_groups.h>\n"
         "#include <cooperative_groups/reduce.h>\n"
         "#include \"my.cuh\"\n" +
         extra +
         "namespace cg = cooperative_groups;\n"
         "__global__ void k(int* p) {\n"
         "  auto w = cg::tiled_partition<32>(cg::this_thread_block());\n"
         "  p[0] = cg::reduce(w, (int)threadIdx.x, cg::plus<int>()) + my_value() + " +
         std::to_string(v) + ";\n}\n";
}

rtc::Source source(const ScratchDir& d, const std::string& text) {
  rtc::Source s;
  s.name = (d.path() / "k.cu").string();
  s.text = text;
  s.dir = d.path();
  return s;
}

rtc::Options sm90() {
  rtc::Options o;
  o.arch = "sm_90";
  return o;
}

void same_output(const rtc::CompileResult& a, const rtc::CompileResult& b) {
  ASSERT_TRUE(a.ok && b.ok) << a.log << b.log;
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.cubin, b.cubin);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  EXPECT_EQ(a.kernels[0].registers, b.kernels[0].registers);
  EXPECT_EQ(a.kernels[0].spill_store_bytes, b.kernels[0].spill_store_bytes);
  EXPECT_EQ(rtc::format_diagnostics(a, 0, false), rtc::format_diagnostics(b, 0, false));
}

}  // namespace

TEST(Pch, OpeningDirectivesSkipCommentsAndStopAtCode) {
  const auto o = rtc::opening_directives(
      "// header\n/* a\n   block */\n\n#include <a.h>  // why\n#  define  N   4\n#if N > 2\n#include "
      "\"b.h\"\n"
      "#endif\n#define LONG \\\n  1\nint x;\n#include <c.h>\n");
  EXPECT_EQ(o.lines, (std::vector<std::string>{"#include <a.h>", "#define N 4", "#if N > 2",
                                               "#include \"b.h\"", "#endif", "#define LONG 1"}));
  EXPECT_EQ(o.end, std::string(
                       "// header\n/* a\n   block */\n\n#include <a.h>  // why\n#  define  N   4\n#if N > 2\n"
                       "#include \"b.h\"\n#endif\n#define LONG \\\n  1\n")
                       .size());
  // A prefix never ends inside an open #if.
  EXPECT_EQ(rtc::opening_directives("#include <a.h>\n#ifdef X\n#include <b.h>\nint y;\n#endif\n").lines,
            (std::vector<std::string>{"#include <a.h>"}));
}

// An edited kernel whose headers did not change: compiled with the PCH, faster, and what
// it gives is what it gives without.
TEST(Pch, AnEditedKernelWithTheSameHeadersUsesThemAndGivesTheSameCode) {
  ScratchDir d;
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { return 7; }\n");
  const rtc::CompileResult cold = rtc::compile(source(d, kernel(2)), sm90());
  EXPECT_FALSE(cold.pch);
  const rtc::WarmResult w = rtc::warm_headers(source(d, kernel(1)), sm90(), d.path().string());
  ASSERT_TRUE(w.made) << w.why;
  EXPECT_TRUE(std::filesystem::exists(w.file));
  const rtc::CompileResult warm = rtc::compile(source(d, kernel(2)), sm90());
  EXPECT_TRUE(warm.pch) << warm.pch_note;
  same_output(cold, warm);
  // Generous: NVRTC took about a fifth of the time here (the headers are most of a
  // cooperative-groups compile); what the user feels is measured by scripts/bench.
  EXPECT_LT(warm.times.nvrtc, 0.75 * cold.times.nvrtc) << warm.times.nvrtc << " vs " << cold.times.nvrtc;
  // Warming again with nothing changed keeps the PCH as it is.
  const rtc::WarmResult again = rtc::warm_headers(source(d, kernel(3)), sm90(), d.path().string());
  EXPECT_TRUE(again.kept);
  EXPECT_EQ(again.file, w.file);
}

// NVRTC does not see that a header handed over by name changed: warplab must.
TEST(Pch, AChangedHeaderByteIsSeenNeverAStaleHeader) {
  ScratchDir d;
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { return 7; }\n");
  ASSERT_TRUE(rtc::warm_headers(source(d, kernel(0)), sm90(), d.path().string()).made);
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { return 9; }\n");
  const rtc::CompileResult after = rtc::compile(source(d, kernel(0)), sm90());
  EXPECT_FALSE(after.pch);
  EXPECT_EQ(after.pch_note, "a header changed since it was kept warm");
  rtc::forget_warm_headers();
  const rtc::CompileResult fresh = rtc::compile(source(d, kernel(0)), sm90());
  same_output(after, fresh);
  // And warming again keeps the new bytes.
  ASSERT_TRUE(rtc::warm_headers(source(d, kernel(0)), sm90(), d.path().string()).made);
  const rtc::CompileResult rewarmed = rtc::compile(source(d, kernel(5)), sm90());
  EXPECT_TRUE(rewarmed.pch) << rewarmed.pch_note;
  const rtc::CompileResult bytes = rtc::compile(source(d, kernel(5)), [] {
    rtc::Options o = sm90();
    o.defines = {{"UNUSED", "1"}};  // other options: no PCH, a compile from the header's bytes
    return o;
  }());
  EXPECT_FALSE(bytes.pch);
  EXPECT_EQ(rewarmed.cubin, bytes.cubin) << "the PCH holds another my_value() than the file";
}

TEST(Pch, OtherOptionsOrOtherHeadersMeanNoPchAndNoWarning) {
  ScratchDir d;
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { return 7; }\n");
  ASSERT_TRUE(rtc::warm_headers(source(d, kernel(0)), sm90(), d.path().string()).made);
  rtc::Options lineinfo = sm90();
  lineinfo.lineinfo = true;
  const rtc::CompileResult a = rtc::compile(source(d, kernel(1)), lineinfo);
  EXPECT_FALSE(a.pch);
  EXPECT_EQ(a.pch_note, "the kept headers were compiled with other options");
  // Another header first: NVRTC would warn (#630-D) and compile without it.
  const rtc::CompileResult b = rtc::compile(source(d, "#include <cuda/std/cstdint>\n" + kernel(1)), sm90());
  EXPECT_FALSE(b.pch);
  EXPECT_EQ(b.log.find("precompiled header"), std::string::npos) << b.log;
  // More headers after the kept ones: the PCH still serves the ones it holds.
  const rtc::CompileResult c = rtc::compile(source(d, kernel(1, "#include <cuda/std/cstdint>\n")), sm90());
  EXPECT_TRUE(c.pch) << c.pch_note;
  EXPECT_EQ(c.log.find("precompiled header"), std::string::npos) << c.log;
}

// watch's standby: forked from the warm process, it compiles with the parent's PCH.
TEST(Pch, AChildForkedFromAWarmProcessUsesItsPch) {
  ScratchDir d;
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { return 7; }\n");
  const rtc::CompileResult cold = rtc::compile(source(d, kernel(4)), sm90());
  ASSERT_TRUE(rtc::warm_headers(source(d, kernel(0)), sm90(), d.path().string()).made);
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const rtc::CompileResult r = rtc::compile(source(d, kernel(4)), sm90());
    const char verdict = !r.pch ? 'n' : r.cubin == cold.cubin && r.ptx == cold.ptx ? 'y' : 'd';
    [[maybe_unused]] const ssize_t w = ::write(p[1], &verdict, 1);
    ::_exit(0);  // never the parent's atexit handlers
  }
  ::close(p[1]);
  char verdict = '?';
  ASSERT_EQ(::read(p[0], &verdict, 1), 1);
  ::close(p[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_EQ(verdict, 'y') << "n: the child compiled without the PCH; d: its code differs";
}

TEST(Pch, WhatCannotBeKeptSaysWhy) {
  rtc::forget_warm_headers();
  ScratchDir d;
  const rtc::WarmResult none =
      rtc::warm_headers(source(d, "__global__ void k(int* p) { p[0] = 1; }\n"), sm90(), d.path().string());
  EXPECT_FALSE(none.made);
  EXPECT_EQ(none.why, "no #include to precompile");
  // A warning in a header would not be shown again by a compile using the PCH.
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { int unused = 3; return 7; }\n");
  const rtc::WarmResult warns = rtc::warm_headers(source(d, kernel(0)), sm90(), d.path().string());
  EXPECT_FALSE(warns.made);
  EXPECT_EQ(warns.why, "its headers give warnings, which a PCH would not repeat");
  EXPECT_EQ(rtc::warm_header_count(), 0u);
  const rtc::CompileResult r = rtc::compile(source(d, kernel(0)), sm90());
  EXPECT_FALSE(r.pch);
  EXPECT_NE(rtc::format_diagnostics(r, 0, false).find("unused"), std::string::npos);
}

TEST(Pch, ForgottenHeadersLeaveNoFile) {
  ScratchDir d;
  d.write("my.cuh", "#pragma once\n__device__ inline int my_value() { return 7; }\n");
  const rtc::WarmResult w = rtc::warm_headers(source(d, kernel(0)), sm90(), d.path().string());
  ASSERT_TRUE(w.made);
  rtc::forget_warm_headers({w.file});  // kept: it is in the list
  EXPECT_TRUE(std::filesystem::exists(w.file));
  rtc::forget_warm_headers();
  EXPECT_FALSE(std::filesystem::exists(w.file));
  EXPECT_EQ(rtc::warm_header_count(), 0u);
  EXPECT_FALSE(rtc::compile(source(d, kernel(1)), sm90()).pch);
}
