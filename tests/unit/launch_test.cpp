// launch_test.cpp: every launch validation rule against a hand-built H100 snapshot, with
// the exact sentence a user sees and the limit check() names; a configuration just inside
// each limit passes. No GPU.
// Also: the runtime objects fail with one sentence when no driver is present.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cu/context.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/launch.hpp"

namespace warplab_test {
warplab::cu::DeviceSnapshot h100_snapshot();  // occupancy_test.cpp
}

namespace {

using warplab::cu::Dim3;
using warplab::cu::KernelLimits;
using warplab::cu::LaunchConfig;
using warplab::cu::Limit;

const warplab::cu::DeviceLimits& h100() {
  static const auto d = warplab::cu::device_limits(warplab_test::h100_snapshot());
  return d;
}

LaunchConfig cfg(Dim3 grid, Dim3 block, unsigned shared = 0, bool coop = false) {
  LaunchConfig c;
  c.grid = grid;
  c.block = block;
  c.shared_bytes = shared;
  c.cooperative = coop;
  return c;
}

// The sentence for `c`, or "" when it passes: check() returns it as a value.
std::string why(const LaunchConfig& c, KernelLimits k = {32, 0, 1024, 1},
                const warplab::cu::DeviceLimits& d = h100()) {
  const std::optional<warplab::cu::Violation> v = warplab::cu::check(c, k, d);
  return v ? v->sentence : "";
}

// The limit check() names for `c` (nullopt when it passes).
std::optional<Limit> limit(const LaunchConfig& c, KernelLimits k = {32, 0, 1024, 1},
                           const warplab::cu::DeviceLimits& d = h100()) {
  const auto v = warplab::cu::check(c, k, d);
  return v ? std::optional<Limit>(v->limit) : std::nullopt;
}

TEST(Validate, ZeroDimensions) {
  EXPECT_EQ(why(cfg({1, 1, 1}, {0, 1, 1})),
            "block 0x1x1 has a zero dimension: each of x, y, z must be at least 1");
  EXPECT_EQ(why(cfg({4, 0, 1}, {32, 1, 1})),
            "grid 4x0x1 has a zero dimension: each of x, y, z must be at least 1");
}

TEST(Validate, BlockDimensions) {
  EXPECT_EQ(why(cfg({1, 1, 1}, {2048, 1, 1})), "block dimension x = 2048 exceeds max_block_dim_x = 1024");
  EXPECT_EQ(why(cfg({1, 1, 1}, {1, 1, 128})), "block dimension z = 128 exceeds max_block_dim_z = 64");
  EXPECT_EQ(why(cfg({1, 1, 1}, {1, 1, 64})), "");
  EXPECT_EQ(why(cfg({1, 1, 1}, {1, 1024, 1})), "");
}

TEST(Validate, ThreadsPerBlock) {
  EXPECT_EQ(why(cfg({1, 1, 1}, {1024, 2, 1})),
            "block 1024x2x1 = 2048 threads exceeds max_threads_per_block = 1024");
  EXPECT_EQ(why(cfg({1, 1, 1}, {32, 32, 1})), "");
}

TEST(Validate, KernelMaxThreads) {
  const KernelLimits bounded{32, 0, 512, 1};
  EXPECT_EQ(why(cfg({1, 1, 1}, {32, 32, 1}), bounded),
            "block 32x32x1 = 1024 threads exceeds the kernel's max_threads_per_block = 512 "
            "(set by its launch bounds or its register use)");
  EXPECT_EQ(why(cfg({1, 1, 1}, {16, 32, 1}), bounded), "");
}

TEST(Validate, RegistersPerBlock) {
  // Offline resources (max threads unknown): 80 registers = 2560 per warp; 25 warps are
  // allocated as 28 (4 sub-partitions) = 71680 registers.
  const KernelLimits heavy{80, 0, 0, 1};
  EXPECT_EQ(why(cfg({1, 1, 1}, {800, 1, 1}), heavy),
            "block 800x1x1 = 800 threads × 80 registers needs 71680 registers (2560 per warp × "
            "28 warps), more than max_registers_per_block = 65536");
  EXPECT_EQ(why(cfg({1, 1, 1}, {768, 1, 1}), heavy), "");  // 24 warps: 61440
}

TEST(Validate, GridDimensions) {
  EXPECT_EQ(why(cfg({1, 65536, 1}, {32, 1, 1})), "grid dimension y = 65536 exceeds max_grid_dim_y = 65535");
  EXPECT_EQ(why(cfg({2147483648u, 1, 1}, {32, 1, 1})),
            "grid dimension x = 2147483648 exceeds max_grid_dim_x = 2147483647");
  EXPECT_EQ(why(cfg({2147483647u, 65535, 65535}, {32, 1, 1})), "");
}

TEST(Validate, SharedMemoryOptIn) {
  const KernelLimits k{32, 1024, 1024, 1};
  // Above 48 KiB is fine (launch opts in) up to the opt-in limit minus static.
  EXPECT_EQ(why(cfg({1, 1, 1}, {128, 1, 1}, 64 * 1024), k), "");
  EXPECT_EQ(why(cfg({1, 1, 1}, {128, 1, 1}, 231424), k), "");
  EXPECT_EQ(why(cfg({1, 1, 1}, {128, 1, 1}, 231425), k),
            "static 1024 + dynamic 231425 bytes exceeds max_shared_memory_per_block_optin = 232448");
  // A device without opt-in stops at max_shared_memory_per_block.
  auto s = warplab_test::h100_snapshot();
  s.attributes.erase("max_shared_memory_per_block_optin");
  const auto old = warplab::cu::device_limits(s);
  EXPECT_EQ(why(cfg({1, 1, 1}, {128, 1, 1}, 49153), {32, 0, 1024, 1}, old),
            "static 0 + dynamic 49153 bytes exceeds max_shared_memory_per_block = 49152");
}

TEST(Validate, Cooperative) {
  // 256 threads x 32 registers: 8 blocks per SM x 132 SMs = 1056 co-resident.
  EXPECT_EQ(why(cfg({1056, 1, 1}, {256, 1, 1}, 0, true)), "");
  EXPECT_EQ(why(cfg({1057, 1, 1}, {256, 1, 1}, 0, true)),
            "cooperative grid of 1057 blocks exceeds the 1056 co-resident blocks "
            "(8 per SM × 132 SMs)");
  // Shared memory lowers the resident count: 4 blocks of 50176 bytes per SM.
  EXPECT_EQ(why(cfg({529, 1, 1}, {128, 1, 1}, 48 * 1024, true)),
            "cooperative grid of 529 blocks exceeds the 528 co-resident blocks "
            "(4 per SM × 132 SMs)");
  EXPECT_EQ(why(cfg({2000, 1, 1}, {256, 1, 1}, 0, false)), "");  // not cooperative: no limit
  auto s = warplab_test::h100_snapshot();
  s.attributes["cooperative_launch"] = 0;
  EXPECT_EQ(why(cfg({1, 1, 1}, {32, 1, 1}, 0, true), {32, 0, 1024, 1}, warplab::cu::device_limits(s)),
            "a cooperative launch needs cooperative_launch = 1, and this device has "
            "cooperative_launch = 0");
}

TEST(Check, NamesTheLimit) {
  EXPECT_EQ(limit(cfg({1, 1, 1}, {32, 1, 1})), std::nullopt);
  EXPECT_EQ(limit(cfg({1, 1, 1}, {0, 1, 1})), Limit::block_zero);
  EXPECT_EQ(limit(cfg({0, 1, 1}, {32, 1, 1})), Limit::grid_zero);
  EXPECT_EQ(limit(cfg({1, 1, 1}, {1, 1, 128})), Limit::block_dim);
  EXPECT_EQ(limit(cfg({1, 1, 1}, {1024, 2, 1})), Limit::threads_per_block);
  EXPECT_EQ(limit(cfg({1, 1, 1}, {32, 32, 1}), {32, 0, 512, 1}), Limit::kernel_threads_per_block);
  EXPECT_EQ(limit(cfg({1, 1, 1}, {800, 1, 1}), {80, 0, 0, 1}), Limit::registers_per_block);
  EXPECT_EQ(limit(cfg({1, 65536, 1}, {32, 1, 1})), Limit::grid_dim);
  EXPECT_EQ(limit(cfg({1, 1, 1}, {128, 1, 1}, 231425), {32, 1024, 1024, 1}), Limit::shared_memory);
  EXPECT_EQ(limit(cfg({1057, 1, 1}, {256, 1, 1}, 0, true)), Limit::cooperative_residency);
  // The first broken rule wins: a zero block before a grid over its limit.
  EXPECT_EQ(limit(cfg({1, 65536, 1}, {0, 1, 1})), Limit::block_zero);
}

TEST(Validate, LimitsReadFromASnapshot) {
  const auto d = warplab::cu::device_limits(warplab_test::h100_snapshot());
  EXPECT_FALSE(warplab::cu::check(cfg({1, 1, 1}, {1024, 1, 1}), KernelLimits{}, d).has_value());
  const auto v = warplab::cu::check(cfg({1, 1, 1}, {1025, 1, 1}), KernelLimits{}, d);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->limit, Limit::block_dim);  // 1025 > max_block_dim_x, checked first
}

TEST(Runtime, NoDriverOneSentence) {
  if (warplab::cu::driver_available()) GTEST_SKIP() << "a driver is present";
  try {
    warplab::cu::primary_context(0);
    FAIL() << "expected cu::Error";
  } catch (const warplab::cu::Error& e) {
    EXPECT_EQ(e.code(), CUDA_ERROR_NO_DEVICE);
    EXPECT_EQ(e.kind(), warplab::ErrorKind::no_gpu);
    EXPECT_NE(std::string(e.what()).find("no"), std::string::npos);
  }
}

}  // namespace
