// occupancy_test.cpp: warplab's occupancy calculator against cases worked out by hand
// from H100 (sm_90) and A100 (sm_80) limits; no GPU. Each case names the arithmetic that
// gives its answer, so a wrong granularity or carveout rule changes the number.
#include <gtest/gtest.h>

#include "cu/device.hpp"
#include "cu/error.hpp"
#include "cu/occupancy.hpp"

namespace warplab_test {

// H100 SXM limits as the driver reports them (also used by launch_test.cpp).
warplab::cu::DeviceSnapshot h100_snapshot() {
  warplab::cu::DeviceSnapshot d;
  d.name = "NVIDIA H100 80GB HBM3 (hand-built)";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.source = "test snapshot";
  d.attributes = {
      {"warp_size", 32},
      {"multiprocessor_count", 132},
      {"max_threads_per_block", 1024},
      {"max_block_dim_x", 1024},
      {"max_block_dim_y", 1024},
      {"max_block_dim_z", 64},
      {"max_grid_dim_x", 2147483647},
      {"max_grid_dim_y", 65535},
      {"max_grid_dim_z", 65535},
      {"max_shared_memory_per_block", 49152},
      {"max_shared_memory_per_block_optin", 232448},  // 227 KiB
      {"reserved_shared_memory_per_block", 1024},
      {"max_shared_memory_per_multiprocessor", 233472},  // 228 KiB
      {"max_registers_per_block", 65536},
      {"max_registers_per_multiprocessor", 65536},
      {"max_threads_per_multiprocessor", 2048},
      {"max_blocks_per_multiprocessor", 32},
      {"cooperative_launch", 1},
  };
  return d;
}

}  // namespace warplab_test

namespace {

using warplab::cu::KernelLimits;
using warplab::cu::Limiter;
using warplab::cu::occupancy;
using warplab::cu::OccupancyResult;

const warplab::cu::DeviceLimits& h100() {
  static const auto d = warplab::cu::device_limits(warplab_test::h100_snapshot());
  return d;
}

OccupancyResult h100_occ(int block, int regs, long long dyn = 0, int stat = 0, int carveout = -1) {
  return occupancy(KernelLimits{regs, stat, 0, 1}, block, dyn, h100(), carveout);
}

TEST(Occupancy, DeviceLimitsReadFromSnapshot) {
  const auto& d = h100();
  EXPECT_EQ(d.cc_major, 9);
  EXPECT_EQ(d.max_shared_per_block_optin, 232448);
  EXPECT_EQ(d.max_block_dim[2], 64);
  EXPECT_EQ(d.max_blocks_per_sm, 32);
  EXPECT_TRUE(d.cooperative_launch);
}

TEST(Occupancy, WarpsLimit256x32Regs) {
  // 8 warps per block, 64 warp slots: 8 blocks; registers (1024 per warp, 16 warps per
  // quarter, 64 per SM) also allow exactly 8, so both bits are set, warps reported first.
  const auto r = h100_occ(256, 32);
  EXPECT_EQ(r.blocks_per_sm, 8);
  EXPECT_EQ(r.by_warps, 8);
  EXPECT_EQ(r.by_registers, 8);
  EXPECT_EQ(r.limiter, Limiter::warps);
  EXPECT_EQ(r.limiting_mask, unsigned(Limiter::warps) | unsigned(Limiter::registers));
  EXPECT_EQ(r.active_warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(r.occupancy, 1.0);
}

TEST(Occupancy, RegistersLimit256x64Regs) {
  // 2048 registers per warp: 8 warps per quarter, 32 per SM, 4 blocks of 8 warps.
  const auto r = h100_occ(256, 64);
  EXPECT_EQ(r.blocks_per_sm, 4);
  EXPECT_EQ(r.limiter, Limiter::registers);
  EXPECT_EQ(r.regs_per_block, 16384);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
}

TEST(Occupancy, SharedLimit128ThreadsWith48KiB) {
  // 49152 + 1024 reserved = 50176 bytes per block; 233472 / 50176 = 4.65 -> 4 blocks.
  const auto r = h100_occ(128, 32, 48 * 1024);
  EXPECT_EQ(r.shared_per_block, 50176);
  EXPECT_EQ(r.shared_per_sm, 233472);
  EXPECT_EQ(r.by_shared, 4);
  EXPECT_EQ(r.blocks_per_sm, 4);
  EXPECT_EQ(r.limiter, Limiter::shared_memory);
  EXPECT_DOUBLE_EQ(r.occupancy, 16.0 / 64.0);
}

TEST(Occupancy, BlocksLimitSmallBlocks) {
  // 1 warp per block would allow 64 by warps and 128 by registers; 32 block slots bind.
  const auto r = h100_occ(32, 16);
  EXPECT_EQ(r.by_warps, 64);
  EXPECT_EQ(r.by_registers, 128);
  EXPECT_EQ(r.blocks_per_sm, 32);
  EXPECT_EQ(r.limiter, Limiter::blocks);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.5);
}

TEST(Occupancy, RegisterAllocationGranularity) {
  // 33 regs x 32 lanes = 1056, allocated as 1280: 12 warps per quarter, 48 per SM, 6
  // blocks. Without the 256-register granularity it would be 7.
  EXPECT_EQ(h100_occ(256, 33).blocks_per_sm, 6);
  // 3-warp blocks at 40 regs (1280 per warp): 12 warps per quarter -> 48 -> 16 blocks;
  // dividing the whole file (51 warps) instead of quarters would give 17.
  const auto r = h100_occ(96, 40);
  EXPECT_EQ(r.by_registers, 16);
  EXPECT_EQ(r.blocks_per_sm, 16);
}

TEST(Occupancy, FullRegisterFileOneBlock) {
  const auto r = h100_occ(1024, 64);  // 2048 x 32 warps = 65536: exactly one block
  EXPECT_EQ(r.blocks_per_sm, 1);
  EXPECT_EQ(r.limiter, Limiter::registers);
  const auto z = h100_occ(1024, 65);  // 2304 x 32 = 73728 > 65536: cannot launch
  EXPECT_EQ(z.blocks_per_sm, 0);
  EXPECT_EQ(z.reason,
            "block of 1024 threads × 65 registers needs 73728 registers (allocated per warp "
            "in units of 256), more than max_registers_per_block = 65536");
}

TEST(Occupancy, SharedAllocationGranularityAndReserve) {
  // 10000 + 1024 = 11024, rounded to 128 -> 11136; 233472 / 11136 = 20 (21 unrounded,
  // 23 without the 1 KiB reserve).
  const auto r = h100_occ(32, 16, 10000);
  EXPECT_EQ(r.shared_per_block, 11136);
  EXPECT_EQ(r.blocks_per_sm, 20);
  EXPECT_EQ(r.limiter, Limiter::shared_memory);
  EXPECT_EQ(h100_occ(32, 16, 0, 1000).shared_per_block, 2048);  // static counts the same
}

TEST(Occupancy, OptInLimit) {
  EXPECT_EQ(h100_occ(128, 32, 232448).blocks_per_sm, 1);  // 227 KiB + 1 KiB = the whole SM
  const auto r = h100_occ(128, 32, 232449);
  EXPECT_EQ(r.blocks_per_sm, 0);
  EXPECT_EQ(r.limiter, Limiter::shared_memory);
  EXPECT_EQ(r.reason, "static 0 + dynamic 232449 bytes exceeds max_shared_memory_per_block_optin = 232448");
}

TEST(Occupancy, PreferredCarveout) {
  // 50 % of 228 KiB = 114 KiB, rounded up to the 132 KiB configuration: 2 blocks of 50176.
  const auto half = h100_occ(128, 32, 48 * 1024, 0, 50);
  EXPECT_EQ(half.shared_per_sm, 132 * 1024);
  EXPECT_EQ(half.blocks_per_sm, 2);
  // 0 % is overridden by a block's need: the smallest configuration holding 50176 (64 KiB).
  const auto none = h100_occ(128, 32, 48 * 1024, 0, 0);
  EXPECT_EQ(none.shared_per_sm, 64 * 1024);
  EXPECT_EQ(none.blocks_per_sm, 1);
  // 2 KiB blocks with a 0 % preference land in the 8 KiB configuration: 4 blocks.
  EXPECT_EQ(h100_occ(32, 16, 1024, 0, 0).blocks_per_sm, 4);
}

TEST(Occupancy, BarriersOnHopper) {
  // 16 named barriers per block: 2 x 32 barrier slots / 16 = 4 blocks.
  const auto r = occupancy(KernelLimits{16, 0, 0, 16}, 32, 0, h100());
  EXPECT_EQ(r.by_barriers, 4);
  EXPECT_EQ(r.blocks_per_sm, 4);
  EXPECT_EQ(r.limiter, Limiter::barriers);
}

TEST(Occupancy, BlockTooLargeForDeviceOrKernel) {
  const auto d = h100_occ(1056, 16);
  EXPECT_EQ(d.blocks_per_sm, 0);
  EXPECT_EQ(d.limiter, Limiter::warps);
  EXPECT_EQ(d.reason, "block of 1056 threads exceeds max_threads_per_block = 1024");
  const auto k = occupancy(KernelLimits{16, 0, 512, 1}, 768, 0, h100());
  EXPECT_EQ(k.blocks_per_sm, 0);
  EXPECT_EQ(k.reason, "block of 768 threads exceeds the kernel's max_threads_per_block = 512");
  EXPECT_EQ(occupancy(KernelLimits{16, 0, 512, 1}, 512, 0, h100()).blocks_per_sm, 4);
}

TEST(Occupancy, AmpereA100) {
  // sm_80: 164 KiB per SM, 163 KiB opt-in; 50176-byte blocks: 167936 / 50176 = 3.
  auto s = warplab_test::h100_snapshot();
  s.cc_major = 8;
  s.attributes["max_shared_memory_per_multiprocessor"] = 167936;
  s.attributes["max_shared_memory_per_block_optin"] = 166912;
  const auto r = occupancy(KernelLimits{32, 0, 0, 1}, 128, 48 * 1024, s);
  EXPECT_EQ(r.blocks_per_sm, 3);
  EXPECT_EQ(r.by_barriers, warplab::cu::kNoLimit);  // no barrier limit before sm_90
}

TEST(Occupancy, LimiterNames) {
  EXPECT_EQ(warplab::cu::limiter_name(Limiter::shared_memory), "shared memory");
  EXPECT_EQ(warplab::cu::limiter_name(Limiter::registers), "registers");
}

TEST(Occupancy, MissingAttributeIsNamed) {
  auto s = warplab_test::h100_snapshot();
  s.attributes.erase("max_registers_per_multiprocessor");
  try {
    warplab::cu::device_limits(s);
    FAIL() << "expected cu::Error";
  } catch (const warplab::cu::Error& e) {
    EXPECT_NE(std::string(e.what()).find("max_registers_per_multiprocessor"), std::string::npos);
  }
}

}  // namespace
