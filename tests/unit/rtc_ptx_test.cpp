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

// The cluster directives, as NVRTC writes them: __cluster_dims__(x, y, z) gives
// .explicitcluster and .reqnctapercluster, __cluster_dims__() .explicitcluster alone, and
// __launch_bounds__' third value .maxclusterrank (its second, .minnctapersm, is read beside
// them). The launch check reads these (cu::check); `warplab watch` shows them changing.
TEST(PtxReader, ClusterDirectives) {
  rtc::Source src;
  src.name = "c.cu";
  src.text =
      "extern \"C\" __global__ void __cluster_dims__(2, 1, 1) two(int* p) { p[0] = 1; }\n"
      "extern \"C\" __global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(256) square(int* p) { p[0] = "
      "1; }\n"
      "extern \"C\" __global__ void __cluster_dims__() any(int* p) { p[0] = 1; }\n"
      "extern \"C\" __global__ void __launch_bounds__(128, 1, 4) capped(int* p) { p[0] = 1; }\n"
      "extern \"C\" __global__ void plain(int* p) { p[0] = 1; }\n";
  rtc::Options o;
  o.arch = "sm_90";
  const auto r = rtc::compile(src, o);
  ASSERT_TRUE(r.ok) << r.log;
  const auto two = rtc::ptx_entry(r.ptx, "two");
  ASSERT_TRUE(two);
  EXPECT_EQ(two->cluster, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_TRUE(two->explicit_cluster);
  EXPECT_EQ(two->max_cluster_rank, 0u);
  const auto square = rtc::ptx_entry(r.ptx, "square");
  ASSERT_TRUE(square);
  EXPECT_EQ(square->cluster, (std::array<unsigned, 3>{2, 2, 1}));
  EXPECT_EQ(square->max_threads(), 256) << ".maxntid still read beside the cluster directives";
  const auto any = rtc::ptx_entry(r.ptx, "any");
  ASSERT_TRUE(any);
  EXPECT_EQ(any->cluster, (std::array<unsigned, 3>{0, 0, 0}));
  EXPECT_TRUE(any->explicit_cluster);
  const auto capped = rtc::ptx_entry(r.ptx, "capped");
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped->max_cluster_rank, 4u);
  EXPECT_FALSE(capped->explicit_cluster);
  EXPECT_EQ(capped->max_threads(), 128);
  EXPECT_EQ(capped->min_blocks, 1u) << "__launch_bounds__' second value: .minnctapersm";
  const auto plain = rtc::ptx_entry(r.ptx, "plain");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->explicit_cluster);
  EXPECT_EQ(plain->cluster[0], 0u);
  EXPECT_EQ(plain->min_blocks, 0u);
}

// PTX written by hand may give fewer than three sizes: the rest are 1.
TEST(PtxReader, ClusterSizesDefaultToOne) {
  const std::string ptx =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(\n\t.param .u64 k_param_0\n)\n.reqnctapercluster 4\n{\n\tret;\n}\n";
  const auto k = rtc::ptx_entry(ptx, "k");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->cluster, (std::array<unsigned, 3>{4, 1, 1}));
  EXPECT_TRUE(k->explicit_cluster);
}
