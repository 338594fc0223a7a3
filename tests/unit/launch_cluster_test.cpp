// launch_cluster_test.cpp: the thread-block cluster rules of cu::check against a
// hand-built H100 snapshot (and the same with compute capability 8.0), with the exact
// sentence a user sees; a configuration just inside each rule passes. No GPU.
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

TEST(ValidateCluster, PortableSize) {
  EXPECT_EQ(why(clustered({16, 1, 1}, {8, 1, 1})), "");
  EXPECT_EQ(why(clustered({8, 8, 2}, {2, 2, 2})), "");  // 8 blocks in three dimensions
  EXPECT_EQ(why(clustered({16, 1, 1}, {16, 1, 1})),
            "cluster 16x1x1 = 16 blocks exceeds the portable cluster size of 8 blocks (larger "
            "clusters need a non-portable opt-in that warplab does not make)");
  EXPECT_EQ(why(clustered({12, 3, 1}, {3, 3, 1})),
            "cluster 3x3x1 = 9 blocks exceeds the portable cluster size of 8 blocks (larger "
            "clusters need a non-portable opt-in that warplab does not make)");
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
  EXPECT_EQ(why(c).rfind("cluster 16x1x1 = 16 blocks exceeds", 0), 0u);
  c.cluster = {4, 1, 1};
  c.cooperative = true;
  EXPECT_EQ(why(c), "grid dimension x = 10 is not a multiple of cluster dimension x = 4");
}

TEST(ValidateCluster, NamesTheLimit) {
  using warplab::cu::Limit;
  EXPECT_EQ(limit(clustered({8, 1, 1}, {0, 1, 1})), Limit::cluster_zero);
  EXPECT_EQ(limit(clustered({16, 1, 1}, {16, 1, 1})), Limit::cluster_size);
  EXPECT_EQ(limit(clustered({10, 1, 1}, {4, 1, 1})), Limit::cluster_grid);
  LaunchConfig c = clustered({8, 1, 1}, {2, 1, 1});
  EXPECT_EQ(limit(c), std::nullopt);
  c.cooperative = true;
  EXPECT_EQ(limit(c), Limit::cluster_cooperative);
}

}  // namespace
