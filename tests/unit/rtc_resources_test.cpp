// rtc_resources_test.cpp: the ptxas report parser on the report formats ptxas prints
// (with and without barriers and cmem items, stack from a non-inlined callee), and the
// same numbers from a real compile.
#include <gtest/gtest.h>

#include "rtc/compile.hpp"

namespace rtc = warplab::rtc;

TEST(Resources, ParsesEachEntryBlock) {
  const std::string log =
      "ptxas info    : 272 bytes gmem, 400 bytes cmem[3]\n"
      "ptxas info    : Compiling entry function '_Z2k2Pd' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z2k2Pd\n"
      "ptxas         .     40 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 26 registers, used 2 barriers, 48 bytes cumulative stack size, "
      "1024 bytes smem, 360 bytes cmem[0], 40 bytes cmem[2]\n"
      "ptxas info    : Compile time = 42.352 ms\n"
      "ptxas info    : Function properties for __internal_trig_reduction_slowpathd\n"
      "ptxas         .     99 bytes stack frame, 7 bytes spill stores, 7 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'plain' for 'sm_70'\n"
      "ptxas info    : Function properties for plain\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, 356 bytes cmem[0]\n";
  const auto ks = rtc::parse_ptxas_report(log);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].mangled, "_Z2k2Pd");
  EXPECT_EQ(ks[0].registers, 26);
  EXPECT_EQ(ks[0].barriers, 2);
  EXPECT_EQ(ks[0].stack_bytes, 48);
  EXPECT_EQ(ks[0].shared_bytes, 1024);
  EXPECT_EQ(ks[0].const_bytes, 40);  // bank 0 (parameters) is not counted
  EXPECT_EQ(ks[0].spill_store_bytes, 8);
  EXPECT_EQ(ks[0].spill_load_bytes, 12);
  // The device function's properties between the blocks belong to nobody's kernel.
  EXPECT_EQ(ks[1].mangled, "plain");
  EXPECT_EQ(ks[1].registers, 8);
  EXPECT_FALSE(ks[1].barriers.has_value());  // this ptxas does not say: unknown, not 0
  EXPECT_EQ(ks[1].stack_bytes, 0);
  EXPECT_EQ(ks[1].spill_store_bytes, 0);
}

TEST(Resources, RegisterCapCausesSpillsInARealCompile) {
  rtc::Source src;
  src.name = "spill.cu";
  src.text = R"(
__global__ void pressure(const float* in, float* out) {
  float v[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) v[i] = in[threadIdx.x + i * 256];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 48; ++i) s += v[i] * v[47 - i] + v[(i + 5) % 48];
  out[threadIdx.x] = s;
})";
  rtc::Options o;
  o.arch = "sm_90";
  const auto free_run = rtc::compile(src, o);
  o.max_registers = 24;
  const auto capped = rtc::compile(src, o);
  ASSERT_TRUE(free_run.ok && capped.ok) << capped.log;
  EXPECT_GT(free_run.kernels.at(0).registers, 24);
  EXPECT_EQ(free_run.kernels.at(0).spill_store_bytes, 0);
  EXPECT_LE(capped.kernels.at(0).registers, 24);
  EXPECT_GT(capped.kernels.at(0).spill_store_bytes, 0);
  EXPECT_GT(capped.kernels.at(0).spill_load_bytes, 0);
}

// A number too large for a long (found by diagnostics_fuzz: std::stol threw out of the
// parser) leaves that field unknown; the rest of the report is still read.
TEST(PtxasReport, NumbersTooLargeAreUnknownNotThrown) {
  const std::string log =
      "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z1kPf\n"
      "ptxas         .     99999999999999999999999 bytes stack frame, 8 bytes spill stores, 4 bytes spill "
      "loads\n"
      "ptxas info    : Used 99999999999 registers, used 1 barriers, 99999999999999999999999 bytes smem\n";
  std::vector<rtc::KernelResources> r;
  ASSERT_NO_THROW(r = rtc::parse_ptxas_report(log));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].registers.has_value());
  EXPECT_EQ(r[0].barriers, 1);
  EXPECT_EQ(r[0].spill_store_bytes, 8);
  EXPECT_EQ(r[0].spill_load_bytes, 4);
  EXPECT_FALSE(r[0].shared_bytes.has_value());  // named, but with no usable number
}
