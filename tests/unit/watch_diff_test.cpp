// watch_diff_test.cpp: `watch --diff`: the before/after report over a code folder, and the
// resource line with its occupancy from the records a run writes (lab/watch_feed.hpp). The
// listings and their diff are rtc/listing.hpp's (rtc_listing_test.cpp).
#include <gtest/gtest.h>

#include <fstream>

#include "app/watch/diff.hpp"
#include "cu/occupancy.hpp"
#include "cu/profile.hpp"
#include "lab/watch_feed.hpp"
#include "rtc/compile.hpp"

#include <cstdio>
#include <cstdlib>

using namespace warplab::app::watch;

TEST(WatchDiff, ReportsChangedKernelsAfterTheFirstRun) {
  CodeDiff d;
  ASSERT_FALSE(d.dir().empty());
  auto write = [&](const std::string& body) {
    std::ofstream(d.dir() + "/1.k.cu.ptx") << ".visible .entry _Z4fillPi(\n)\n{\n\t" << body << "\n}\n";
  };
  write("mov.u32 %r1, 1;");
  const std::string first = d.collect();  // at most the note that no SASS tool exists here
  EXPECT_TRUE(first.empty() || first.find("PTX diffs only") != std::string::npos) << first;
  write("mov.u32 %r1, 1;");
  EXPECT_EQ(d.collect(), "") << "unchanged code";
  write("mov.u32 %r1, 2;");
  const std::string r = d.collect();
  EXPECT_NE(r.find("PTX of fill(int*) changed:"), std::string::npos) << r;
  EXPECT_NE(r.find("- mov.u32 %r1, 1;"), std::string::npos) << r;
  EXPECT_NE(r.find("+ mov.u32 %r1, 2;"), std::string::npos) << r;
}

TEST(WatchDiff, AChangedKernelGetsItsResourcesOldToNew) {
  CodeDiff d;
  auto compile_into = [&](int max_registers) {
    warplab::rtc::Source src;
    src.name = "k.cu";
    src.text =
        "__global__ void k(const float* in, float* out) { float v[24];\n"
        "#pragma unroll\n for (int i = 0; i < 24; ++i) v[i] = in[threadIdx.x + i * 64];\n"
        " float s = 0;\n#pragma unroll\n for (int i = 0; i < 24; ++i) s += v[i] * v[23 - i];\n"
        " out[threadIdx.x] = s; }\n";
    warplab::rtc::Options o;
    o.arch = "sm_90";
    o.max_registers = max_registers;
    const auto r = warplab::rtc::compile(src, o);
    ASSERT_TRUE(r.ok) << r.log;
    std::ofstream(d.dir() + "/1.k.cu.ptx") << r.ptx;
    std::ofstream(d.dir() + "/1.k.cu.cubin", std::ios::binary)
        .write(r.cubin.data(), static_cast<long>(r.cubin.size()));
  };
  compile_into(0);
  d.collect();
  compile_into(16);
  const std::string r = d.collect();
  EXPECT_NE(r.find("k(const float*, float*): regs "), std::string::npos) << r;
  EXPECT_NE(r.find("stack 0\u2192"), std::string::npos) << r;
  EXPECT_NE(r.find("\u2192"), std::string::npos) << r;
}

// The resource line's occupancy: on the synthetic profile (registers 64 Ki per SM, 2048
// threads), 72 registers at 256 threads leave room for 3 blocks (768 of 2048 threads).
TEST(WatchDiff, ResourceLineGivesOccupancyOldToNewAtTheLaunchedBlock) {
  using namespace warplab;
  const cu::DeviceLimits dev = cu::device_limits(
      cu::load_profile(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/profiles/synthetic_profile.json"));
  KernelNumbers a, b;
  a.elf.registers = 32;
  b.elf.registers = 72;
  a.spill_store = a.spill_load = b.spill_load = 0;
  b.spill_store = 16;
  const lab::LastLaunch at{256, 0};
  EXPECT_EQ(resource_line(a, b, &at, &dev),
            "regs 32\u219272, spills 0\u219216 B, occupancy 100 %\u219237.5 % at block 256 (registers)");
  EXPECT_EQ(resource_line(b, a, nullptr, &dev), "regs 72\u219232, spills 16\u21920 B")
      << "no launch: no occupancy";
  b.elf.registers = 24;  // fewer registers, still warp-bound: the occupancy is the same
  EXPECT_EQ(resource_line(a, b, &at, &dev),
            "regs 32\u219224, spills 0\u219216 B, occupancy 100 % at block 256");
  EXPECT_EQ(resource_line(a, a, &at, &dev), "") << "nothing moved";
  a.elf.shared_bytes = 200 * 1024;  // no block of it fits in 228 KiB with the next one
  const lab::LastLaunch big{1024, 0};
  a.elf.registers = b.elf.registers = 128;
  EXPECT_NE(resource_line(a, b, &big, &dev).find("occupancy 0 %"), std::string::npos)
      << resource_line(a, b, &big, &dev);
}

// The records a run writes (lab/watch_feed.hpp) are what the watcher reads: a kernel launched at
// 256 threads, then compiled under a register cap, gets its occupancy old -> new.
TEST(WatchDiff, RunRecordsGiveTheOccupancyLine) {
  using namespace warplab;
  CodeDiff d(false);
  ASSERT_EQ(::setenv("WARPLAB_CODE_DIR", d.dir().c_str(), 1), 0);
  const cu::DeviceSnapshot dev = cu::load_profile("h100");
  std::string mangled;
  auto run = [&](int max_registers, unsigned launched_threads) {
    rtc::Source src;
    src.name = "dir/k.cu";
    src.text =
        "__global__ void k(const float* in, float* out) { float v[64];\n"
        "#pragma unroll\n for (int i = 0; i < 64; ++i) v[i] = in[threadIdx.x + i * 64];\n"
        " float s = 0;\n#pragma unroll\n for (int i = 0; i < 64; ++i) s += v[i] * v[63 - i];\n"
        " out[threadIdx.x] = s; }\n";
    rtc::Options o;
    o.arch = "sm_90";
    o.max_registers = max_registers;
    const auto r = rtc::compile(src, o);
    ASSERT_TRUE(r.ok) << r.log;
    mangled = r.entries.at(0);
    lab::feed_code(src.name, r);
    lab::feed_device(dev);
    if (launched_threads) lab::feed_launch(src.name, mangled, lab::LastLaunch{launched_threads, 0});
  };
  run(0, 256);
  EXPECT_EQ(d.collect(), "");
  run(32, 0);  // this run launched nothing: the last launch known (256) still counts
  const std::string r = d.collect();
  ::unsetenv("WARPLAB_CODE_DIR");
  unsigned before = 0, after = 0;
  ASSERT_EQ(std::sscanf(r.c_str(), "k(const float*, float*): regs %u\u2192%u", &before, &after), 2) << r;
  ASSERT_GT(before, 64u) << "the uncapped kernel needs more than 64 registers: " << r;
  const auto occ = [&](unsigned regs) {
    return cu::occupancy(cu::KernelLimits{static_cast<int>(regs), 0, 0, 1}, 256, 0, cu::device_limits(dev));
  };
  char want[64];
  std::snprintf(want, sizeof want, "occupancy %.3g %%\u2192%.3g %% at block 256 (%s)",
                100 * occ(before).occupancy, 100 * occ(after).occupancy,
                std::string(cu::limiter_name(occ(after).limiter)).c_str());
  EXPECT_NE(r.find(want), std::string::npos) << r << "\nwant: " << want;
}
