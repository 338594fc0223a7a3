// counters_gpu_test.cpp (GPU): hardware counters counted in process through CUPTI's range
// profiler, first with the cu layer alone, then through lab::CounterSession: a one-warp
// shared store and load at stride 32 and at stride 1 (31 bank conflicts in 32 wavefronts
// against 0 in 1), a branch split inside warps against one split across warps (branch
// efficiency and threads per instruction), every named set collected on one launch, rows
// matched to the launches recorded, and sessions nested. Each test prints what it counted, so one run on
// the GPU machine shows the numbers as well as the verdicts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cu/cupti.hpp"
#include "cu/launch.hpp"
#include "cu/memory.hpp"
#include "cu/metric_host.hpp"
#include "cu/range_profiler.hpp"
#include "gpu_support.hpp"
#include "lab/counters.hpp"

namespace {

namespace cu = warplab::cu;
namespace lab = warplab::lab;

const char* const kCounterKernels = R"(
// One store and one load per thread at index lane * stride: at stride 32 every lane hits
// bank 0 with a different word (31 conflicts, 32 wavefronts), at stride 1 none do.
extern "C" __global__ void shared_stride(int* out, int stride) {
  __shared__ int buf[32 * 33];
  buf[threadIdx.x * stride] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = buf[((threadIdx.x + 1) % blockDim.x) * stride];
}
// Two loops of different, run-time trip counts (no if-conversion possible) chosen by odd
// and even lanes (split inside each warp) or by odd and even warps (each warp uniform).
extern "C" __global__ void branchy(float* out, int split_in_warp, int iters) {
  const bool left = split_in_warp ? (threadIdx.x & 1) : ((threadIdx.x / warpSize) & 1);
  float v = threadIdx.x;
  if (left) {
#pragma unroll 1
    for (int i = 0; i < iters; ++i) v = v * 1.0001f + 0.5f;
  } else {
#pragma unroll 1
    for (int i = 0; i < 2 * iters; ++i) v = v * 0.9999f - 0.25f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
extern "C" __global__ void fill(float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 0.5f * i;
}
)";

// The value of counter `name` in `row`; fails the test when the selection lacks it.
double value(const lab::CounterReport& r, const lab::CounterRow& row, const std::string& name) {
  for (std::size_t i = 0; i < r.selection.counters.size(); ++i)
    if (r.selection.counters[i].name == name) return row.values.at(i);
  ADD_FAILURE() << "no counter " << name;
  return std::nan("");
}

void print(const std::string& title, const lab::CounterReport& r) {
  std::printf("%s: chip %s, %zu pass(es), %zu row(s)%s%s\n", title.c_str(), r.selection.chip.c_str(),
              r.selection.passes, r.rows.size(), r.note.empty() ? "" : "; note: ", r.note.c_str());
  for (const auto& row : r.rows) {
    std::printf("  %s grid %ux%ux%u block %ux%ux%u\n", row.kernel.c_str(), row.grid.x, row.grid.y, row.grid.z,
                row.block.x, row.block.y, row.block.z);
    for (std::size_t i = 0; i < row.values.size(); ++i)
      std::printf("    %-34s %14.3f %s\n", r.selection.counters[i].name.c_str(), row.values[i],
                  r.selection.counters[i].unit.c_str());
  }
  std::fflush(stdout);
}

class Counters : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto why = cu::cupti_unavailable()) GTEST_SKIP() << *why;
    ctx_ = cu::primary_context(0);
    module_ = warplab_gpu::load(ctx_, kCounterKernels, "counters.cu");
  }
  // One launch of `kernel`, counted by `s` as a launch path makes it (CounterSession::launch).
  void launch(lab::CounterSession& s, const char* kernel, cu::LaunchConfig c, std::vector<void*> args) {
    s.launch(*module_->function(kernel), c, args.data(), lab::CountedKernel{kernel, {}, {}}, lab::Where{});
  }
  cu::ContextPtr ctx_;
  cu::ModulePtr module_;
};

// The cu layer alone, in the order measured on an H100 with ncu as the witness: chip name,
// host config image, range profiler enabled and configured, two launches, stop, decode,
// one evaluation per range.
TEST_F(Counters, RangeProfilerAloneCountsBankConflicts) {
  const std::string chip = cu::chip_name(0);
  std::printf("CUPTI %s (version %u), chip %s\n", cu::cupti().library.c_str(), cu::cupti().version,
              chip.c_str());
  const std::vector<std::string> metrics = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                                            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"};
  cu::MetricHost host(chip);
  std::vector<std::uint8_t> image = host.config_image(metrics);
  EXPECT_EQ(cu::MetricHost::passes(image), 1u);
  cu::DeviceBuffer out(ctx_, 32 * sizeof(int));
  CUdeviceptr p = out.get();
  int stride32 = 32, stride1 = 1;
  cu::LaunchConfig one_warp;
  one_warp.block.x = 32;
  cu::RangeProfiler profiler(ctx_);
  profiler.configure(metrics, image, 16);
  profiler.start();
  for (int* stride : {&stride32, &stride1}) {
    void* args[] = {&p, stride};
    cu::launch(*module_->function("shared_stride"), one_warp, args);
  }
  ctx_->synchronize();
  EXPECT_TRUE(profiler.stop());
  EXPECT_EQ(profiler.decode(), 0u);
  ASSERT_EQ(profiler.ranges(), 2u);
  const auto s32 = host.evaluate(profiler.counter_data(), 0, metrics);
  const auto s1 = host.evaluate(profiler.counter_data(), 1, metrics);
  std::printf("stride 32: %.0f conflicts in %.0f wavefronts; stride 1: %.0f in %.0f\n", s32[0], s32[1], s1[0],
              s1[1]);
  EXPECT_EQ(s32, (std::vector<double>{31, 32}));
  EXPECT_EQ(s1, (std::vector<double>{0, 1}));
}

TEST_F(Counters, SharedStrideThirtyTwoConflictsThirtyOneTimes) {
  cu::DeviceBuffer out(ctx_, 32 * sizeof(int));
  CUdeviceptr p = out.get();
  int stride32 = 32, stride1 = 1;
  cu::LaunchConfig one_warp;
  one_warp.block.x = 32;
  lab::CounterSession s(ctx_, {"shared"});
  EXPECT_EQ(lab::CounterSession::active(), &s);
  launch(s, "shared_stride", one_warp, {&p, &stride32});
  launch(s, "shared_stride", one_warp, {&p, &stride1});
  const lab::CounterReport r = s.end();
  EXPECT_EQ(lab::CounterSession::active(), nullptr);
  print("shared, strides 32 and 1", r);
  EXPECT_EQ(r.selection.chip, cu::chip_name(0));
  EXPECT_EQ(r.note, "");
  ASSERT_EQ(r.rows.size(), 2u);
  const auto& s32 = r.rows[0];
  const auto& s1 = r.rows[1];
  EXPECT_EQ(s32.kernel, "shared_stride");
  EXPECT_EQ(s32.block.x, 32u);
  for (const char* op : {"st", "ld"}) {
    SCOPED_TRACE(op);
    const std::string k = std::string("shared_") + op + "_";
    EXPECT_EQ(value(r, s32, k + "requests"), 1.0);
    EXPECT_EQ(value(r, s32, k + "conflicts"), 31.0);
    EXPECT_EQ(value(r, s32, k + "wavefronts"), 32.0);
    EXPECT_EQ(value(r, s32, k + "conflicts_per_request"), 31.0);
    EXPECT_EQ(value(r, s32, k + "wavefronts_per_request"), 32.0);
    EXPECT_EQ(value(r, s1, k + "requests"), 1.0);
    EXPECT_EQ(value(r, s1, k + "conflicts"), 0.0);
    EXPECT_EQ(value(r, s1, k + "wavefronts"), 1.0);
    EXPECT_EQ(value(r, s1, k + "conflicts_per_request"), 0.0);
  }
}

TEST_F(Counters, BranchSplitInsideWarpsLowersBranchEfficiency) {
  cu::DeviceBuffer out(ctx_, 64 * sizeof(float));
  CUdeviceptr p = out.get();
  int in_warp = 1, across = 0, iters = 256;
  cu::LaunchConfig two_warps;
  two_warps.block.x = 64;
  lab::CounterSession s(ctx_, {"warps"});
  launch(s, "branchy", two_warps, {&p, &in_warp, &iters});
  launch(s, "branchy", two_warps, {&p, &across, &iters});
  const lab::CounterReport r = s.end();
  print("warps, split inside warps then across warps", r);
  ASSERT_EQ(r.rows.size(), 2u);
  const auto& div = r.rows[0];
  const auto& uni = r.rows[1];
  EXPECT_LT(value(r, div, "branch_efficiency"), value(r, uni, "branch_efficiency"));
  EXPECT_GT(value(r, div, "divergent_branches"), value(r, uni, "divergent_branches"));
  // Inside the loops half of each warp sits out.
  EXPECT_LT(value(r, div, "threads_per_instruction"), 0.75 * value(r, uni, "threads_per_instruction"));
  EXPECT_GT(value(r, uni, "threads_per_instruction"), 30.0);
  EXPECT_GT(value(r, div, "branches"), 0.0);
}

// Every named set counts one launch; a set CUPTI refuses is reported with its sentence and
// the others still run.
TEST_F(Counters, EveryNamedSetCounts) {
  const int n = 1 << 20;
  cu::DeviceBuffer out(ctx_, n * sizeof(float));
  CUdeviceptr p = out.get();
  int count = n;
  cu::LaunchConfig c;
  c.grid.x = 264;
  c.block.x = 256;
  // One set; ASSERT_* inside leaves this lambda only, so the other sets still run.
  auto count_one = [&](const std::string& name) {
    lab::CounterSession s(ctx_, {name});
    launch(s, "fill", c, {&p, &count});
    const lab::CounterReport r = s.end();
    print(name, r);
    ASSERT_EQ(r.rows.size(), 1u);
    EXPECT_EQ(r.rows[0].kernel, "fill");
    EXPECT_EQ(r.rows[0].grid.x, 264u);
    ASSERT_EQ(r.rows[0].values.size(), r.selection.counters.size());
    // A ratio over a count of 0 is NaN (fill makes no shared or local requests); nothing
    // is infinite.
    for (std::size_t i = 0; i < r.rows[0].values.size(); ++i)
      EXPECT_FALSE(std::isinf(r.rows[0].values[i])) << r.selection.counters[i].name;
    const auto& row = r.rows[0];
    if (name == "memory") {
      EXPECT_EQ(value(r, row, "global_st_requests"), n / 32.0);        // one per warp and iteration
      EXPECT_EQ(value(r, row, "global_st_sectors_per_request"), 4.0);  // 32 lanes x 4 bytes
    } else if (name == "warps") {
      EXPECT_GT(value(r, row, "achieved_occupancy"), 0.0);
      EXPECT_GT(value(r, row, "threads_per_instruction"), 30.0);
    } else if (name == "local") {
      EXPECT_EQ(value(r, row, "local_st_requests"), 0.0);
    } else if (name == "time") {
      EXPECT_GT(value(r, row, "duration"), 0.0);
      EXPECT_GT(value(r, row, "sm_peak_pct"), 0.0);
      EXPECT_LE(value(r, row, "sm_peak_pct"), 100.0);
    }
  };
  for (const auto& set : lab::counter_sets()) {
    const std::string name(set.name);
    SCOPED_TRACE(name);
    try {
      count_one(name);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "set " << name << ": " << e.what();
    }
  }
}

TEST_F(Counters, RowsFollowTheRecordedLaunches) {
  cu::DeviceBuffer out(ctx_, 4096 * sizeof(float));
  CUdeviceptr p = out.get();
  int count = 4096;
  {
    lab::CounterSession s(ctx_, {"local"});
    for (unsigned blocks : {1u, 2u, 4u}) {
      cu::LaunchConfig c;
      c.grid.x = blocks;
      c.block.x = 128;
      launch(s, "fill", c, {&p, &count});
    }
    const lab::CounterReport r = s.end();
    ASSERT_EQ(r.rows.size(), 3u);
    EXPECT_EQ(r.note, "");
    EXPECT_EQ(r.rows[0].grid.x, 1u);
    EXPECT_EQ(r.rows[1].grid.x, 2u);
    EXPECT_EQ(r.rows[2].grid.x, 4u);
    EXPECT_EQ(r.rows[2].block.x, 128u);
    EXPECT_THROW(s.end(), warplab::Error);
  }
  // A launch the session was not told about: the rows lose their names, and the note says why.
  lab::CounterSession s(ctx_, {"local"});
  cu::LaunchConfig c;
  c.block.x = 128;
  launch(s, "fill", c, {&p, &count});
  void* args[] = {&p, &count};
  cu::launch(*module_->function("fill"), c, args);
  const lab::CounterReport r = s.end();
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[0].kernel, "");
  EXPECT_EQ(r.note, "the GPU counted 2 launches but warplab recorded 1, so the rows carry no kernel names");
}

// Sessions nest (a script's cuda.counters inside `run --counters`): the inner one pauses
// the outer, counts what both ask for, and the outer gets every launch, in order.
TEST_F(Counters, SessionsNest) {
  cu::DeviceBuffer out(ctx_, 32 * 33 * sizeof(int));
  CUdeviceptr p = out.get();
  int stride32 = 32, stride1 = 1;
  cu::LaunchConfig one_warp;
  one_warp.block.x = 32;
  lab::CounterSession outer(ctx_, {"shared_st_conflicts"});
  launch(outer, "shared_stride", one_warp, {&p, &stride32});
  lab::CounterReport in;
  {
    lab::CounterSession inner(ctx_, {"shared_ld_requests", "local"});
    EXPECT_EQ(lab::CounterSession::active(), &inner);
    launch(inner, "shared_stride", one_warp, {&p, &stride1});
    in = inner.end();
    EXPECT_EQ(lab::CounterSession::active(), &outer);
  }
  launch(outer, "shared_stride", one_warp, {&p, &stride32});
  {
    lab::CounterSession left(ctx_, {"local"});  // ended by its destructor: the outer resumes
  }
  EXPECT_EQ(lab::CounterSession::active(), &outer);
  launch(outer, "shared_stride", one_warp, {&p, &stride1});
  const lab::CounterReport all = outer.end();
  EXPECT_EQ(lab::CounterSession::active(), nullptr);
  print("inner", in);
  print("outer", all);
  ASSERT_EQ(in.rows.size(), 1u);
  EXPECT_EQ(value(in, in.rows[0], "shared_ld_requests"), 1.0);
  EXPECT_EQ(in.rows[0].values.size(), in.selection.counters.size());  // its own counters only
  EXPECT_EQ(all.note, "");
  ASSERT_EQ(all.rows.size(), 4u);
  const double want[] = {31, 0, 31, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(all.rows[i].kernel, "shared_stride") << i;
    EXPECT_EQ(value(all, all.rows[i], "shared_st_conflicts"), want[i]) << "launch " << i;
  }
}

// SASS metrics (branch efficiency) of a module loaded after counting began, as a script
// that compiles inside cuda.counters(fn) does.
TEST_F(Counters, ModuleLoadedWhileCountingIsCounted) {
  cu::DeviceBuffer out(ctx_, 64 * sizeof(float));
  CUdeviceptr p = out.get();
  int in_warp = 1, iters = 64;
  cu::LaunchConfig two_warps;
  two_warps.block.x = 64;
  lab::CounterSession s(ctx_, {"warps"});
  auto late = warplab_gpu::load(ctx_, kCounterKernels, "counters_late.cu");
  s.launch(*late->function("branchy"), two_warps, std::vector<void*>{&p, &in_warp, &iters}.data(),
           lab::CountedKernel{"branchy", {}, {}}, lab::Where{});
  const lab::CounterReport r = s.end();
  print("warps, module loaded while counting", r);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(std::isfinite(value(r, r.rows[0], "branch_efficiency")));
  EXPECT_LT(value(r, r.rows[0], "branch_efficiency"), 100.0);
}

}  // namespace
