// rtc_ptx_test.cpp: the one PTX reader (rtc/ptx.hpp): entries with their parameter
// layout, __launch_bounds__ caps and text extent, from a real NVRTC compile; the offline
// kernel and `watch --diff` build on these.
#include <gtest/gtest.h>

#include "rtc/compile.hpp"
#include "rtc/ptx.hpp"

namespace rtc = warplab::rtc;

TEST(PtxReader, LayoutCapsAndExtentOfEachEntry) {
  rtc::Source src;
  src.name = "p.cu";
  src.text =
      "struct alignas(16) Q { float a, b, c, d; };\n"
      "__global__ void __launch_bounds__(128) a(const float* x, int n, Q q, double d) { }\n"
      "extern \"C\" __global__ void b(char c) { }\n";
  rtc::Options o;
  o.arch = "sm_90";
  const auto r = rtc::compile(src, o);
  ASSERT_TRUE(r.ok) << r.log;
  const auto all = rtc::ptx_entry_list(r.ptx);
  ASSERT_EQ(all.size(), 2u);
  const auto a = rtc::ptx_entry(r.ptx, r.entries[0] == "b" ? r.entries[1] : r.entries[0]);
  ASSERT_TRUE(a.has_value());
  ASSERT_EQ(a->params.size(), 4u);
  EXPECT_EQ(a->params[0].bytes, 8u);   // pointer
  EXPECT_EQ(a->params[1].bytes, 4u);   // int
  EXPECT_EQ(a->params[2].bytes, 16u);  // Q
  EXPECT_EQ(a->params[2].align, 16u);
  EXPECT_EQ(a->params[3].bytes, 8u);  // double
  EXPECT_EQ(a->max_threads(), 128);
  const std::string text = r.ptx.substr(a->begin, a->end - a->begin);
  EXPECT_NE(text.find(".entry " + a->name), std::string::npos);
  EXPECT_EQ(text.back(), '}');
  EXPECT_EQ(text.find(".entry b"), std::string::npos) << "one entry's text holds only itself";
  const auto b = rtc::ptx_entry(r.ptx, "b");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->max_threads(), 0);
  ASSERT_EQ(b->params.size(), 1u);
  EXPECT_EQ(b->params[0].bytes, 1u);
  EXPECT_FALSE(rtc::ptx_entry(r.ptx, "missing").has_value());
}
