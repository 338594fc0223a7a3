// watch_diff_test.cpp: `watch --diff`: the before/after report over a code folder, and the
// resource line with its occupancy from the records a run writes (lab/watch_feed.hpp). The
// listings and their diff are rtc/listing.hpp's (rtc_listing_test.cpp).
#include <gtest/gtest.h>
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

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

namespace {

const char* const kSynthetic = WARPLAB_SOURCE_DIR "/tests/data/profiles/synthetic_profile.json";

// A kernel as a run left it: 32 registers, nothing else, launched at 256 threads.
KernelNumbers plain_kernel() {
  KernelNumbers k;
  k.elf.registers = 32;
  k.spill_store = k.spill_load = 0;
  k.launch = {256, 0};
  return k;
}

}  // namespace

// The resource line's occupancy: on the synthetic profile (registers 64 Ki per SM, 2048
// threads), 72 registers at 256 threads leave room for 3 blocks (768 of 2048 threads), and a
// block of at most 896 threads (28 warps of 2304 registers).
TEST(WatchDiff, ResourceLineGivesOccupancyOldToNewAtTheLaunchedBlock) {
  using namespace warplab;
  const cu::DeviceLimits dev = cu::device_limits(cu::load_profile(kSynthetic));
  KernelNumbers a = plain_kernel(), b = plain_kernel();
  b.elf.registers = 72;
  b.spill_store = 16;
  EXPECT_EQ(resource_line(a, b, &dev),
            "regs 32\u219272, spills 0\u219216 B, max threads 1024\u2192896 (registers), occupancy "
            "100 %\u219237.5 % at block 256 (8\u21923 blocks/SM, limiter warps\u2192registers)");
  a.launch = b.launch = {};
  EXPECT_EQ(resource_line(b, a, &dev), "regs 72\u219232, spills 16\u21920 B, max threads 896\u21921024")
      << "never launched: no occupancy";
  a.launch = {256, 0};
  EXPECT_EQ(
      resource_line(b, a, &dev),
      "regs 72\u219232, spills 16\u21920 B, max threads 896\u21921024, occupancy 37.5 %\u2192100 % at block "
      "256 (3\u21928 blocks/SM, limiter registers\u2192warps)")
      << "launched by one run only: that launch for both";
  b = plain_kernel();
  b.elf.registers = 24;  // fewer registers, still warp-bound: the occupancy is the same
  EXPECT_EQ(resource_line(a, b, &dev),
            "regs 32\u219224, occupancy 100 % at block 256 (same: 8 blocks/SM, limiter warps)");
  EXPECT_EQ(resource_line(a, a, &dev), "") << "nothing moved";
  a.elf.registers = 64;  // a block of 1024 threads fits once; with 128 registers not at all
  b.elf.registers = 128;
  a.launch = b.launch = {1024, 0};
  const std::string none = resource_line(a, b, &dev);
  EXPECT_NE(none.find("occupancy 50 %\u21920 % at block 1024 (1\u21920 blocks/SM: block of 1024 threads "),
            std::string::npos)
      << "why no block fits, in a sentence: " << none;
}

// Every number the line compares, each moved alone from a plain kernel (32 registers,
// launched at 256 threads on the synthetic profile: 8 blocks/SM, bound by warps): its name,
// old -> new, and the occupancy at the script's block, moved or the same.
TEST(WatchDiff, ResourceLineNamesEachLimitThatMovedAlone) {
  using namespace warplab;
  const cu::DeviceLimits dev = cu::device_limits(cu::load_profile(kSynthetic));
  const std::string same = ", occupancy 100 % at block 256 (same: 8 blocks/SM, limiter warps)";
  struct Case {
    const char* what;
    void (*edit)(KernelNumbers&);
    std::string want;
  };
  const Case cases[] = {
      {"registers", [](KernelNumbers& k) { k.elf.registers = 40; },
       "regs 32\u219240, occupancy 100 %\u219275 % at block 256 (8\u21926 blocks/SM, limiter "
       "warps\u2192registers)"},
      {"register cap", [](KernelNumbers& k) { k.elf.max_registers = 32; },
       "register cap none\u219232" + same},
      {"spills", [](KernelNumbers& k) { k.spill_load = 8; }, "spills 0\u21928 B" + same},
      {"stack", [](KernelNumbers& k) { k.elf.stack_bytes = 64; }, "stack 0\u219264 B" + same},
      {"static shared", [](KernelNumbers& k) { k.elf.shared_bytes = 4096; }, "shared 0\u21924096 B" + same},
      {"dynamic shared", [](KernelNumbers& k) { k.launch.dynamic_shared = 48 * 1024; },
       "dynamic shared 0\u219249152 B, occupancy 100 %\u219250 % at block 256 (8\u21924 blocks/SM, limiter "
       "warps\u2192shared memory)"},
      {"constant", [](KernelNumbers& k) { k.elf.const_bytes = 1024; }, "constant 0\u21921024 B" + same},
      {"barriers", [](KernelNumbers& k) { k.elf.barriers = 2; }, "barriers 0\u21922" + same},
      {"launch bounds",
       [](KernelNumbers& k) {
         k.elf.max_threads = {256, 1, 1};
       },
       "max threads 1024\u2192256 (__launch_bounds__)" + same},
      {"required block",
       [](KernelNumbers& k) {
         k.elf.reqntid = {256, 1, 1};
       },
       "max threads 1024\u2192256 (__launch_bounds__), required block none\u2192256x1x1" + same},
      {"min blocks", [](KernelNumbers& k) { k.entry.min_blocks = 2; }, "min blocks/SM none\u21922" + same},
      {"cluster",
       [](KernelNumbers& k) {
         k.entry.cluster = {2, 1, 1}, k.entry.explicit_cluster = true;
       },
       "cluster none\u21922x1x1" + same},
      {"clusters only", [](KernelNumbers& k) { k.entry.explicit_cluster = true; },
       "clusters only no\u2192yes" + same},
      {"max cluster blocks", [](KernelNumbers& k) { k.entry.max_cluster_rank = 4; },
       "max cluster blocks none\u21924" + same},
      {"block size", [](KernelNumbers& k) { k.launch.threads = 128; },
       "occupancy 100 % at block 256\u2192128 (8\u219216 blocks/SM, limiter warps)"},
  };
  for (const Case& c : cases) {
    KernelNumbers a = plain_kernel(), b = plain_kernel();
    c.edit(b);
    EXPECT_EQ(resource_line(a, b, &dev), c.want) << c.what;
  }
  // Without the run's device: the numbers, the declared bound alone, no occupancy.
  KernelNumbers a = plain_kernel(), b = plain_kernel();
  b.elf.max_threads = {256, 1, 1};
  EXPECT_EQ(resource_line(a, b, nullptr), "max threads ?\u2192256 (__launch_bounds__)");
  EXPECT_EQ(resource_line(b, a, nullptr), "max threads 256\u2192?");
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
  char want[128];
  std::snprintf(want, sizeof want,
                "occupancy %.3g %%\u2192%.3g %% at block 256 (%d\u2192%d blocks/SM, limiter ",
                100 * occ(before).occupancy, 100 * occ(after).occupancy, occ(before).blocks_per_sm,
                occ(after).blocks_per_sm);
  EXPECT_NE(r.find(want), std::string::npos) << r << "\nwant: " << want;
  std::snprintf(want, sizeof want, "%s)\n", std::string(cu::limiter_name(occ(after).limiter)).c_str());
  EXPECT_NE(r.find(want), std::string::npos) << r << "\nwant: " << want;
}
