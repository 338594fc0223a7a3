// rtc_compile_test.cpp: rtc::compile against the real NVRTC, no GPU: good sources for
// several architectures with their resources, name expressions, defines, the CUDA
// headers, include resolution and the dependency list, misuse that throws.
#include <gtest/gtest.h>

#include <algorithm>

#include "rtc/compile.hpp"
#include "rtc_test_util.hpp"

namespace rtc = warplab::rtc;
using warplab::test::ScratchDir;

namespace {

rtc::Source inline_source(const std::string& text, const std::string& name = "test.cu") {
  rtc::Source s;
  s.name = name;
  s.text = text;
  return s;
}

rtc::Options for_arch(const std::string& arch) {
  rtc::Options o;
  o.arch = arch;
  return o;
}

const char* kGood = R"(
__global__ void k(const float* a, float* b, int n) {
  __shared__ float tile[256];
  tile[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < n) b[threadIdx.x] = tile[255 - threadIdx.x];
}
extern "C" __global__ void plain(int* p) { p[threadIdx.x] = threadIdx.x; }
)";

}  // namespace

class GoodFile : public ::testing::TestWithParam<std::string> {};

TEST_P(GoodFile, CompilesWithResourcesPtxAndCubin) {
  const rtc::CompileResult r = rtc::compile(inline_source(kGood), for_arch(GetParam()));
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_TRUE(r.diagnostics.empty()) << rtc::format_diagnostics(r, 0, false);
  EXPECT_EQ(r.arch, GetParam());
  EXPECT_EQ(r.nvrtc_version, rtc::nvrtc_version());
  EXPECT_EQ(r.entries, (std::vector<std::string>{"_Z1kPKfPfi", "plain"}));
  ASSERT_EQ(r.kernels.size(), 2u);
  const rtc::KernelResources* k = r.resources("_Z1kPKfPfi");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->shared_bytes, 256 * 4);
  EXPECT_EQ(k->barriers, 1);
  EXPECT_GT(k->registers, 0);
  EXPECT_EQ(k->spill_store_bytes, 0);
  EXPECT_EQ(r.resources("plain")->shared_bytes, 0);
  EXPECT_NE(r.ptx.find(".target " + GetParam()), std::string::npos);
  ASSERT_GE(r.cubin.size(), 4u);
  EXPECT_EQ(std::string(r.cubin.data(), 4),
            "\x7f"
            "ELF");
  EXPECT_GT(r.compile_ms, 0.0);
  // The ptxas report is in the log but never among the diagnostics.
  EXPECT_NE(r.log.find("ptxas info"), std::string::npos);
  EXPECT_NE(std::find(r.options.begin(), r.options.end(), "--ptxas-options=-v"), r.options.end());
}

INSTANTIATE_TEST_SUITE_P(Archs, GoodFile, ::testing::Values("sm_80", "sm_90"));

TEST(Compile, NameExpressionsInstantiateAndLower) {
  rtc::Options o = for_arch("sm_90");
  o.name_expressions = {"reduce<256>", "reduce<64>"};
  const auto r = rtc::compile(inline_source(R"(
template <int N> __global__ void reduce(float* x) {
  __shared__ float s[N];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[N - 1 - threadIdx.x];
})"),
                              o);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.lowered_name("reduce<256>"), "_Z6reduceILi256EEvPf");
  EXPECT_EQ(r.lowered_name("reduce<64>"), "_Z6reduceILi64EEvPf");
  EXPECT_EQ(r.lowered_name("reduce<7>"), "");
  EXPECT_EQ(r.resources("_Z6reduceILi256EEvPf")->shared_bytes, 256 * 4);
  EXPECT_EQ(r.resources("_Z6reduceILi64EEvPf")->shared_bytes, 64 * 4);
}

TEST(Compile, BadNameExpressionIsADiagnostic) {
  rtc::Options o = for_arch("sm_90");
  o.name_expressions = {"k", "nosuch<3>"};
  const auto r = rtc::compile(inline_source("__global__ void k() {}\n"), o);
  ASSERT_FALSE(r.ok);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_NE(r.diagnostics[0].message.find("name expression \"nosuch<3>\""), std::string::npos)
      << r.diagnostics[0].message;
}

TEST(Compile, DefinesReachTheSource) {
  rtc::Options o = for_arch("sm_80");
  o.defines = {{"BLOCK", "128"}, {"USE_TILE", ""}};
  const auto r = rtc::compile(inline_source(R"(
#ifndef USE_TILE
#error USE_TILE must be defined
#endif
__global__ void k(float* x) { __shared__ float t[BLOCK]; t[threadIdx.x] = 1; __syncthreads(); x[0] = t[1]; }
)"),
                              o);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.kernels.at(0).shared_bytes, 128 * 4);
}

TEST(Compile, MaxRegistersForcesStackUse) {
  const std::string src = R"(
__global__ void heavy(float* x) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = x[i * threadIdx.x];
  float s = 0;
  for (int i = 0; i < 64; ++i) s += a[(i * 7 + threadIdx.x) % 64];
  x[0] = s;
})";
  const auto r = rtc::compile(inline_source(src), for_arch("sm_90"));
  ASSERT_TRUE(r.ok) << r.log;
  // A dynamically indexed local array lives on the stack: 64 floats.
  EXPECT_EQ(r.kernels.at(0).stack_bytes, 64 * 4);
}

TEST(Compile, CooperativeGroupsAndCudaStdCompile) {
  const auto r = rtc::compile(inline_source(R"(
#include <cooperative_groups.h>
#include <cuda/std/type_traits>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;
static_assert(cuda::std::is_same_v<int, cuda::std::remove_const_t<const int>>);
__global__ void k(__half* p) {
  cg::thread_block b = cg::this_thread_block();
  b.sync();
  p[b.thread_rank()] = __float2half(1.0f);
})"),
                              for_arch("sm_90"));
  EXPECT_TRUE(r.ok) << r.log;
  EXPECT_EQ(r.entries, (std::vector<std::string>{"_Z1kP6__half"}));
}

TEST(Compile, LineinfoAddsLocations) {
  rtc::Options o = for_arch("sm_90");
  o.lineinfo = true;
  const auto with = rtc::compile(inline_source(kGood), o);
  const auto without = rtc::compile(inline_source(kGood), for_arch("sm_90"));
  ASSERT_TRUE(with.ok && without.ok);
  EXPECT_NE(with.ptx.find(".loc"), std::string::npos);
  EXPECT_EQ(without.ptx.find(".loc"), std::string::npos);
}

TEST(Compile, UnsupportedArchThrowsListingSupported) {
  try {
    rtc::compile(inline_source(kGood), for_arch("sm_35"));
    FAIL() << "no throw";
  } catch (const rtc::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unsupported architecture 'sm_35'"), std::string::npos) << m;
    EXPECT_NE(m.find("sm_90"), std::string::npos) << m;
  }
  EXPECT_THROW(rtc::compile(inline_source(kGood), for_arch("compute_90")), rtc::Error);
  EXPECT_THROW(rtc::compile(inline_source(kGood), for_arch("")), rtc::Error);
  EXPECT_NO_THROW(rtc::compile(inline_source(kGood), for_arch("sm_90a")));
}

TEST(Compile, SupportedArchsComeFromNvrtc) {
  const auto archs = rtc::supported_archs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_80"), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), "sm_90"), archs.end());
  // The a variants NVRTC accepts are listed after their number; sm_75a is no target.
  const auto sm90 = std::find(archs.begin(), archs.end(), "sm_90");
  ASSERT_NE(sm90 + 1, archs.end());
  EXPECT_EQ(*(sm90 + 1), "sm_90a");
  EXPECT_EQ(std::find(archs.begin(), archs.end(), "sm_75a"), archs.end());
  for (const auto& a : archs) EXPECT_EQ(a.rfind("sm_", 0), 0u) << a;
  EXPECT_THROW(rtc::compile(inline_source(kGood), for_arch("sm_75a")), rtc::Error);
}

// The listing follows a rule (no compile per variant); here each variant it lists compiles
// and each one it leaves out is refused, for every architecture number this NVRTC has.
TEST(Compile, SupportedArchsAreWhatNvrtcAccepts) {
  const auto archs = rtc::supported_archs();
  for (const auto& a : archs) {
    if (a.back() != 'a' && a.back() != 'f') continue;
    EXPECT_NO_THROW(rtc::compile(inline_source(kGood), for_arch(a))) << a << " is listed but refused";
  }
  for (const auto& a : archs) {
    if (a.back() == 'a' || a.back() == 'f') continue;
    for (const char* suffix : {"a", "f"}) {
      if (std::find(archs.begin(), archs.end(), a + suffix) == archs.end()) {
        EXPECT_THROW(rtc::compile(inline_source(kGood), for_arch(a + suffix)), rtc::Error)
            << a + suffix << " is accepted but not listed";
      }
    }
  }
}

TEST(Compile, VirtualArchGivesPtxOnlyWhenAllowed) {
  rtc::Options o = for_arch("compute_90");
  o.allow_virtual = true;
  const auto r = rtc::compile(inline_source(kGood), o);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_TRUE(rtc::is_virtual_arch(r.arch));
  EXPECT_NE(r.ptx.find(".entry plain"), std::string::npos);
  EXPECT_TRUE(r.cubin.empty());
  ASSERT_EQ(r.kernels.size(), 2u);
  for (const auto& k : r.kernels)
    EXPECT_FALSE(k.registers || k.shared_bytes || k.spill_store_bytes) << k.mangled;
  ASSERT_EQ(r.resource_notes.size(), 1u);
  EXPECT_NE(r.resource_notes[0].find("virtual architecture"), std::string::npos);
  o.arch = "compute_35";
  EXPECT_THROW(rtc::compile(inline_source(kGood), o), rtc::Error);
}

TEST(Compile, LoadSourceFailsWithOneSentence) {
  try {
    rtc::load_source("/nonexistent/x.cu");
    FAIL() << "no throw";
  } catch (const rtc::Error& e) {
    EXPECT_STREQ(e.what(), "cannot read kernel source '/nonexistent/x.cu': No such file or directory");
  }
}
