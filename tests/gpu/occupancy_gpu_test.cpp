// occupancy_gpu_test.cpp (GPU): warplab's occupancy calculator against the driver's
// (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) on a sweep of block sizes x
// register counts (-maxrregcount) x static shared sizes x dynamic shared sizes, with
// every mismatch printed with all its inputs; and the register rule of launch
// validation against the kernel's max_threads_per_block as the driver reports it.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/memory.hpp"
#include "cu/module.hpp"
#include "cu/occupancy.hpp"
#include "gpu_support.hpp"

namespace {

namespace cu = warplab::cu;

// NACC live floats per thread; -maxrregcount caps the registers (spilling the rest), so
// one source yields kernels of several register counts: 37, 75 and about 95 (uncapped)
// for sm_90, none a multiple of 8, so the 256-register allocation unit matters.
// SMEM_BYTES of static shared memory.
const char* const kPressure = R"(
#ifndef SMEM_BYTES
#define SMEM_BYTES 0
#endif
#define NACC 64
extern "C" __global__ void pressure(const float* __restrict__ in, float* __restrict__ out, int n) {
#if SMEM_BYTES > 0
  __shared__ float tile[SMEM_BYTES / 4];
#endif
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[NACC];
#pragma unroll
  for (int j = 0; j < NACC; ++j) acc[j] = in[(t + j * 977) % n];
#pragma unroll
  for (int r = 0; r < 4; ++r) {
#pragma unroll
    for (int j = 0; j < NACC; ++j) acc[j] = acc[j] * acc[(j + r + 1) % NACC] + 1.0f;
  }
#if SMEM_BYTES > 0
  tile[threadIdx.x % (SMEM_BYTES / 4)] = acc[0];
  __syncthreads();
  acc[1] += tile[(threadIdx.x + 1) % (SMEM_BYTES / 4)];
#endif
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < NACC; ++j) s += acc[j];
  out[t] = s;
}
)";

// One point of the calculator-vs-driver sweep.
struct OccupancyCase {
  std::string kernel;  // mangled name
  int block = 0, regs = 0, static_shared = 0, max_threads = 0;
  long long dynamic_shared = 0;
  int own = 0;     // our blocks per SM
  int driver = 0;  // the driver's; -1 when it returned an error
  std::string driver_error;
  // A driver error counts as agreement only where ours says 0 blocks.
  bool agree() const { return own == driver || (driver < 0 && own == 0); }
};

// Every (kernel, block size, dynamic shared size) combination, ours and the driver's.
std::vector<OccupancyCase> sweep(const std::vector<const cu::Function*>& kernels,
                                 const std::vector<int>& blocks, const std::vector<long long>& dynamic_shared,
                                 const cu::DeviceLimits& d) {
  std::vector<OccupancyCase> out;
  for (const cu::Function* f : kernels) {
    for (long long dyn : dynamic_shared) {
      for (int block : blocks) {
        OccupancyCase c;
        c.kernel = f->name();
        c.block = block;
        c.regs = f->limits().regs;
        c.static_shared = f->limits().static_shared;
        c.max_threads = f->limits().max_threads_per_block;
        c.dynamic_shared = dyn;
        c.own = cu::occupancy(f->limits(), block, dyn, d).blocks_per_sm;
        try {
          c.driver = cu::driver_occupancy(*f, block, static_cast<std::size_t>(dyn));
        } catch (const cu::Error& e) {
          c.driver = -1;
          c.driver_error = e.what();
        }
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

class Sweep : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = cu::primary_context(0);
    snapshot_ = warplab_gpu::live_snapshot();
    d_ = cu::device_limits(snapshot_);
    // NVRTC takes ~1 s per variant: compile the 9 once per process, load per test.
    static std::vector<std::pair<std::string, std::string>> images;
    if (images.empty()) {
      for (int regs : {37, 75, 255}) {
        for (int smem : {0, 12288, 40960}) {
          const std::string name = "pressure_r" + std::to_string(regs) + "_s" + std::to_string(smem) + ".cu";
          images.emplace_back(name, warplab_gpu::nvrtc_compile(kPressure, name,
                                                               {"--maxrregcount=" + std::to_string(regs),
                                                                "-DSMEM_BYTES=" + std::to_string(smem)}));
        }
      }
    }
    for (const auto& [name, image] : images)
      kernels_.push_back(cu::Module::load_cubin(ctx_, image, name)->function("pressure"));
    std::printf("%-22s %5s %7s %11s %6s  (%s, %s)\n", "kernel", "regs", "static", "max_threads", "local",
                snapshot_.name.c_str(), snapshot_.arch().c_str());
    for (const auto& f : kernels_)
      std::printf("%-22s %5d %7d %11d %6d\n", label(*f).c_str(), f->attributes().num_regs,
                  f->attributes().shared_size_bytes, f->attributes().max_threads_per_block,
                  f->attributes().local_size_bytes);
  }

  static std::string label(const cu::Function& f) {
    return "pressure r" + std::to_string(f.attributes().num_regs) + " s" +
           std::to_string(f.attributes().shared_size_bytes);
  }

  cu::ContextPtr ctx_;
  cu::DeviceSnapshot snapshot_;
  cu::DeviceLimits d_;
  std::vector<std::shared_ptr<cu::Function>> kernels_;
};

TEST_F(Sweep, OwnCalculatorEqualsDriver) {
  std::vector<int> blocks;
  for (int b = 32; b <= 1024; b += 32) blocks.push_back(b);
  // Ascending: the smaller sizes are asked before the sweep opts a kernel in to more.
  const std::vector<long long> dynamic = {0, 20000, 70000};
  std::vector<const cu::Function*> fs;
  for (const auto& f : kernels_) fs.push_back(f.get());

  const auto cases = sweep(fs, blocks, dynamic, d_);
  int mismatches = 0, driver_errors = 0;
  for (const auto& c : cases) {
    if (c.driver < 0) ++driver_errors;
    if (c.agree()) continue;
    ++mismatches;
    const auto own = cu::occupancy(cu::KernelLimits{c.regs, c.static_shared, c.max_threads, 1}, c.block,
                                   c.dynamic_shared, d_);
    std::printf(
        "MISMATCH block %d regs %d static %d dynamic %lld max_threads %d: own %d "
        "(warps %d regs %d shared %d blocks %d, shared/block %lld, per SM %lld), "
        "driver %d %s\n",
        c.block, c.regs, c.static_shared, c.dynamic_shared, c.max_threads, c.own, own.by_warps,
        own.by_registers, own.by_shared, own.by_blocks, own.shared_per_block, own.shared_per_sm, c.driver,
        c.driver_error.c_str());
  }
  std::printf(
      "occupancy sweep: %zu cases (%zu kernels x %zu block sizes x %zu dynamic sizes), "
      "%d mismatches, %d driver errors\n",
      cases.size(), fs.size(), blocks.size(), dynamic.size(), mismatches, driver_errors);
  EXPECT_EQ(cases.size(), fs.size() * blocks.size() * dynamic.size());
  EXPECT_EQ(mismatches, 0);
}

TEST_F(Sweep, RegisterRuleMatchesDriverMaxThreads) {
  // With the kernel's own cap hidden (as for offline resources), the register rule alone
  // must allow exactly the block sizes the driver's max_threads_per_block allows.
  int checked = 0;
  for (const auto& f : kernels_) {
    cu::KernelLimits k = f->limits();
    k.max_threads_per_block = 0;
    for (unsigned b = 32; b <= static_cast<unsigned>(d_.max_threads_per_block); b += 32) {
      cu::LaunchConfig c;
      c.block.x = b;
      const auto broken = cu::check(c, k, d_);
      const bool ours = !broken;
      const std::string why = broken ? broken->sentence : "";
      const bool driver = static_cast<int>(b) <= f->attributes().max_threads_per_block;
      EXPECT_EQ(ours, driver) << label(*f) << " block " << b << ": driver max_threads_per_block "
                              << f->attributes().max_threads_per_block << "; ours: " << why;
      ++checked;
    }
  }
  std::printf("register rule vs driver max_threads_per_block: %d (kernel, block) pairs\n", checked);
}

TEST_F(Sweep, DriverRejectsWhatRegisterRuleRejects) {
  // The heaviest kernel: one warp over its cap is refused by the driver too (a launch
  // error, not a sticky fault), so the rule reports a real limit.
  const cu::Function& f = *kernels_.back();
  const int cap = f.attributes().max_threads_per_block;
  if (cap >= d_.max_threads_per_block) GTEST_SKIP() << label(f) << " is not register-limited";
  cu::DeviceBuffer in(ctx_, 1024 * sizeof(float)), out(ctx_, 1024 * sizeof(float));
  in.memset(0);
  CUdeviceptr pi = in.get(), po = out.get();
  int n = 1024;
  void* args[] = {&pi, &po, &n};
  cu::LaunchConfig c;
  c.block.x = static_cast<unsigned>(cap + 32);
  try {
    cu::launch(f, c, args);
    ctx_->synchronize();
    ADD_FAILURE() << "the driver launched " << c.block.x << " threads of " << label(f)
                  << " (max_threads_per_block " << cap << ")";
  } catch (const cu::Error& e) {
    EXPECT_NE(e.code(), CUDA_SUCCESS);
    std::printf("driver refuses block %u of %s: %s\n", c.block.x, label(f).c_str(), e.what());
  }
  c.block.x = static_cast<unsigned>(cap);
  ASSERT_FALSE(cu::check(c, f.limits(), d_).has_value());
  cu::launch(f, c, args);
  ctx_->synchronize();
}

}  // namespace
