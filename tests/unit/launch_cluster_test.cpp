// launch_cluster_test.cpp: the thread-block cluster rules of cu::check against a
// hand-built H100 snapshot (and the same with compute capability 8.0), with the exact
// sentence a user sees; a configuration just inside each rule passes: cluster = given at
// launch, the kernel's compile-time cluster (__cluster_dims__), its .maxclusterrank; and
// the architecture rule (code for another compute capability). No GPU.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cu/error.hpp"
#include "cu/launch.hpp"

namespace warplab_test {
warplab::cu::DeviceSnapshot h100_snapshot();  // occupancy_test.cpp
}

namespace {

using warplab::cu::Dim3;
using warplab::cu::KernelLimits;
using warplab::cu::LaunchConfig;

LaunchConfig clustered(Dim3 grid, Dim3 cluster, Dim3 block = {256, 1, 1}) {
  LaunchConfig c;
  c.grid = grid;
  c.block = block;
  c.cluster = cluster;
  return c;
}

// The sentence for `c` on `snap`, or "" when it passes: check()'s value.
std::string why(const LaunchConfig& c,
                const warplab::cu::DeviceSnapshot& snap = warplab_test::h100_snapshot()) {
  const auto v = warplab::cu::check(c, KernelLimits{32, 0, 1024, 1}, warplab::cu::device_limits(snap));
  return v ? v->sentence : "";
}

// The same for a kernel with limits `k` (its compile-time cluster, its code's arch).
std::string why_k(const LaunchConfig& c, const KernelLimits& k,
                  const warplab::cu::DeviceSnapshot& snap = warplab_test::h100_snapshot()) {
  const auto v = warplab::cu::check(c, k, warplab::cu::device_limits(snap));
  return v ? v->sentence : "";
}

// A kernel compiled with __cluster_dims__(x, y, z) (x = 0: __cluster_dims__()).
KernelLimits compiled(unsigned x, unsigned y = 1, unsigned z = 1) {
  KernelLimits k{32, 0, 1024, 1};
  if (x) {
    k.cluster[0] = x;
    k.cluster[1] = y;
    k.cluster[2] = z;
  }
  k.cluster_explicit = true;
  return k;
}

// The limit check() names for `c` on the H100 (nullopt when it passes).
std::optional<warplab::cu::Limit> limit(const LaunchConfig& c) {
  const auto v = warplab::cu::check(c, KernelLimits{32, 0, 1024, 1},
                                    warplab::cu::device_limits(warplab_test::h100_snapshot()));
  return v ? std::optional(v->limit) : std::nullopt;
}

TEST(ValidateCluster, NoClusterByDefault) {
  LaunchConfig c;
  EXPECT_FALSE(c.clustered());
  c.cluster = {1, 1, 1};
  EXPECT_TRUE(c.clustered());
  c.cluster = {0, 1, 1};
  EXPECT_TRUE(c.clustered());  // a zero is named by check, never taken for "none"
}

TEST(ValidateCluster, ZeroDimension) {
  EXPECT_EQ(why(clustered({8, 1, 1}, {0, 1, 1})),
            "cluster 0x1x1 has a zero dimension: each of x, y, z must be at least 1");
  EXPECT_EQ(why(clustered({8, 1, 1}, {2, 1, 0})),
            "cluster 2x1x0 has a zero dimension: each of x, y, z must be at least 1");
}

// Offline, up to 16 blocks pass (8 portable, 16 with the non-portable opt-in warplab makes;
// on a GPU the driver's cuOccupancyMaxPotentialClusterSize decides); more never do.
TEST(ValidateCluster, Size) {
  EXPECT_EQ(why(clustered({16, 1, 1}, {8, 1, 1})), "");
  EXPECT_EQ(why(clustered({8, 8, 2}, {2, 2, 2})), "");  // 8 blocks in three dimensions
  EXPECT_EQ(why(clustered({16, 1, 1}, {16, 1, 1})), "") << "non-portable, opted in";
  EXPECT_EQ(why(clustered({12, 3, 1}, {3, 3, 1})), "");
  EXPECT_EQ(why(clustered({32, 1, 1}, {32, 1, 1})),
            "cluster 32x1x1 = 32 blocks exceeds 16, the most blocks a cluster can hold (8 portable, up to 16 "
            "with the non-portable opt-in where the device allows it)");
  EXPECT_EQ(why(clustered({34, 1, 1}, {17, 1, 1})).rfind("cluster 17x1x1 = 17 blocks exceeds 16", 0), 0u);
}

TEST(ValidateCluster, GridMultipleOfCluster) {
  EXPECT_EQ(why(clustered({10, 1, 1}, {4, 1, 1})),
            "grid dimension x = 10 is not a multiple of cluster dimension x = 4");
  EXPECT_EQ(why(clustered({2, 1, 1}, {4, 1, 1})),
            "grid dimension x = 2 is not a multiple of cluster dimension x = 4");
  EXPECT_EQ(why(clustered({8, 3, 1}, {2, 2, 1})),
            "grid dimension y = 3 is not a multiple of cluster dimension y = 2");
  EXPECT_EQ(why(clustered({4, 4, 3}, {1, 1, 2})),
            "grid dimension z = 3 is not a multiple of cluster dimension z = 2");
  EXPECT_EQ(why(clustered({12, 6, 4}, {3, 1, 2})), "");
  EXPECT_EQ(why(clustered({3, 1, 1}, {3, 1, 1})), "");  // not a power of two: fine
}

TEST(ValidateCluster, NeedsComputeCapability90) {
  auto a100 = warplab_test::h100_snapshot();
  a100.cc_major = 8;
  a100.cc_minor = 0;
  EXPECT_EQ(why(clustered({8, 1, 1}, {2, 1, 1}), a100),
            "a cluster launch needs compute capability 9.0 or higher (cluster_launch = 1), and "
            "this device is 8.0");
  LaunchConfig plain = clustered({8, 1, 1}, {0, 0, 0});
  EXPECT_EQ(why(plain, a100), "");  // no cluster: no requirement
}

TEST(ValidateCluster, NotWithCooperative) {
  LaunchConfig c = clustered({8, 1, 1}, {2, 1, 1});
  c.cooperative = true;
  EXPECT_EQ(why(c),
            "cluster 2x1x1 with cooperative = true is refused: warplab launches a "
            "grid either in clusters or cooperatively, not both");
  c.cluster = {0, 0, 0};
  EXPECT_EQ(why(c), "");
}

TEST(ValidateCluster, Order) {
  // Block rules come first; among the cluster rules: zero, device, size, multiple, cooperative.
  LaunchConfig c = clustered({10, 1, 1}, {16, 1, 1}, {2048, 1, 1});
  EXPECT_EQ(why(c), "block dimension x = 2048 exceeds max_block_dim_x = 1024");
  c.block = {256, 1, 1};
  c.cluster = {32, 1, 1};
  EXPECT_EQ(why(c).rfind("cluster 32x1x1 = 32 blocks exceeds", 0), 0u);
  c.cluster = {4, 1, 1};
  c.cooperative = true;
  EXPECT_EQ(why(c), "grid dimension x = 10 is not a multiple of cluster dimension x = 4");
}

TEST(ValidateCluster, NamesTheLimit) {
  using warplab::cu::Limit;
  EXPECT_EQ(limit(clustered({8, 1, 1}, {0, 1, 1})), Limit::cluster_zero);
  EXPECT_EQ(limit(clustered({32, 1, 1}, {32, 1, 1})), Limit::cluster_size);
  EXPECT_EQ(limit(clustered({10, 1, 1}, {4, 1, 1})), Limit::cluster_grid);
  LaunchConfig c = clustered({8, 1, 1}, {2, 1, 1});
  EXPECT_EQ(limit(c), std::nullopt);
  c.cooperative = true;
  EXPECT_EQ(limit(c), Limit::cluster_cooperative);
}

// A kernel declared __cluster_dims__(2, 1, 1) runs in clusters of 2 without cluster =:
// the grid must divide, and a cluster = must be that one.
TEST(ValidateCluster, CompileTimeCluster) {
  LaunchConfig c;
  c.grid = {9, 1, 1};
  c.block = {32, 1, 1};
  EXPECT_EQ(why_k(c, compiled(2)),
            "grid dimension x = 9 is not a multiple of compile-time cluster dimension x = 2");
  c.grid = {8, 1, 1};
  EXPECT_EQ(why_k(c, compiled(2)), "");
  c.cluster = {2, 1, 1};
  EXPECT_EQ(why_k(c, compiled(2)), "") << "the same cluster given again";
  c.cluster = {4, 1, 1};
  EXPECT_EQ(why_k(c, compiled(2)),
            "cluster 4x1x1 conflicts with the kernel's compile-time cluster 2x1x1 (__cluster_dims__): "
            "leave cluster out, or give 2x1x1");
  c.cluster = {0, 1, 1};
  EXPECT_EQ(why_k(c, compiled(2)), "cluster 0x1x1 has a zero dimension: each of x, y, z must be at least 1");
  LaunchConfig coop;
  coop.grid = {8, 1, 1};
  coop.block = {32, 1, 1};
  coop.cooperative = true;
  EXPECT_EQ(why_k(coop, compiled(2)),
            "the compile-time cluster 2x1x1 with cooperative = true is refused: warplab launches a grid "
            "either in clusters or cooperatively, not both");
  auto a100 = warplab_test::h100_snapshot();
  a100.cc_major = 8;
  const LaunchConfig plain{{8, 1, 1}, {32, 1, 1}};
  EXPECT_EQ(
      why_k(plain, compiled(2), a100).rfind("a cluster launch needs compute capability 9.0 or higher", 0),
      0u);
}

// __cluster_dims__() without a size: the kernel runs only in clusters, whose size the
// launch gives.
TEST(ValidateCluster, ExplicitClusterNeedsOne) {
  LaunchConfig c;
  c.grid = {8, 1, 1};
  c.block = {32, 1, 1};
  EXPECT_EQ(why_k(c, compiled(0)),
            "the kernel is declared __cluster_dims__() without a size, so it runs only in clusters: give "
            "cluster = {x, y, z}");
  c.cluster = {4, 1, 1};
  EXPECT_EQ(why_k(c, compiled(0)), "");
  EXPECT_EQ(why_k(c, KernelLimits{32, 0, 1024, 1}), "");
}

// __launch_bounds__(threads, blocks, 4): at most 4 blocks per cluster.
TEST(ValidateCluster, KernelsOwnMaximum) {
  KernelLimits k{32, 0, 1024, 1};
  k.max_cluster_blocks = 4;
  EXPECT_EQ(why_k(clustered({8, 1, 1}, {4, 1, 1}), k), "");
  EXPECT_EQ(why_k(clustered({8, 1, 1}, {8, 1, 1}), k),
            "cluster 8x1x1 = 8 blocks exceeds the kernel's own maximum of 4 blocks per cluster (the third "
            "value of its __launch_bounds__)");
  EXPECT_EQ(why_k(clustered({8, 2, 1}, {2, 2, 1}), k), "") << "4 blocks in two dimensions";
}

// Code for another compute capability is refused first, whatever else the launch asks:
// sm_XY runs on X.Y to X.9; sm_XYa on X.Y only.
TEST(ValidateCode, ArchitectureAgainstTheDevice) {
  LaunchConfig c;
  c.grid = {1, 1, 1};
  c.block = {32, 1, 1};
  KernelLimits k{32, 0, 1024, 1};
  k.code_arch = 120;
  EXPECT_EQ(
      why_k(c, k),
      "the kernel was compiled for sm_120, and its code cannot run on this device of compute capability "
      "9.0 (sm_120 code runs on compute capability 12.0 to 12.9 only): compile for sm_90");
  k.code_arch = 75;
  EXPECT_EQ(why_k(c, k).rfind("the kernel was compiled for sm_75, and its code cannot run", 0), 0u);
  k.code_arch = 90;
  EXPECT_EQ(why_k(c, k), "");
  k.code_arch_variant = 'a';
  EXPECT_EQ(why_k(c, k), "") << "sm_90a on 9.0";
  c.block = {2048, 1, 1};
  k.code_arch = 100;
  EXPECT_EQ(why_k(c, k).rfind("the kernel was compiled for sm_100a", 0), 0u) << "checked before the block";
  auto h = warplab_test::h100_snapshot();
  h.cc_major = 10;  // a 10.3 device: sm_100 runs, sm_100a does not
  h.cc_minor = 3;
  c.block = {32, 1, 1};
  k.code_arch = 100;
  k.code_arch_variant = 0;
  EXPECT_EQ(why_k(c, k, h), "");
  k.code_arch_variant = 'a';
  EXPECT_EQ(
      why_k(c, k, h),
      "the kernel was compiled for sm_100a, and its code cannot run on this device of compute capability "
      "10.3 (sm_100a code runs on compute capability 10.0 only): compile for sm_103");
  k.code_arch_variant = 'f';
  EXPECT_EQ(why_k(c, k, h), "") << "sm_100f on 10.3: the family";
  h.cc_major = 12;
  h.cc_minor = 0;
  EXPECT_EQ(why_k(c, k, h).rfind("the kernel was compiled for sm_100f, and its code cannot run", 0), 0u);
  k.code_arch = 0;
  EXPECT_EQ(why_k(c, k, h), "") << "unknown (a virtual architecture): not refused";
  EXPECT_EQ(warplab::cu::check_code(k, warplab::cu::device_limits(h)), std::nullopt);
}

}  // namespace
