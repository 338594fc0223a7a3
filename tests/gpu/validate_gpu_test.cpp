// validate_gpu_test.cpp (GPU): every launch validation rule against the live device's
// limits. A configuration over a limit is rejected by cu::check before the driver sees it,
// naming the attribute and its value; the configuration at the limit passes check,
// launches, and the kernel's effect is checked.
#include <gtest/gtest.h>

#include <string>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/memory.hpp"
#include "cu/module.hpp"
#include "cu/occupancy.hpp"
#include "gpu_support.hpp"

namespace {

namespace cu = warplab::cu;

class Rules : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = cu::primary_context(0);
    m_ = warplab_gpu::load(ctx_, warplab_gpu::kBasicKernels, "basic.cu");
    d_ = cu::device_limits(warplab_gpu::live_snapshot());
    out_ = cu::DeviceBuffer(ctx_, 64);
  }

  // The validation message for launching `kernel` with `c`; "" (and a failure, after
  // launching it) when validation let it through.
  std::string rejected(const char* kernel, cu::LaunchConfig c) {
    auto f = m_->function(kernel);
    CUdeviceptr p = out_.get();
    int n = 2;
    void* args[] = {&p, &n};
    if (const auto v = cu::check(c, f->limits(), d_)) return v->sentence;
    ADD_FAILURE() << kernel << " passes the check although a limit is exceeded";
    cu::launch(*f, c, args);
    ctx_->synchronize();
    return "";
  }

  // Launches `kernel` with `c` (must pass validation) and returns the first 8 bytes of
  // the output buffer as written by the kernel (touch/bounded: 1, dyn_smem with 2 ints: 1).
  long long launches(const char* kernel, cu::LaunchConfig c) {
    auto f = m_->function(kernel);
    out_.memset(0);
    CUdeviceptr p = out_.get();
    int n = 2;
    void* args[] = {&p, &n};
    const auto broken = cu::check(c, f->limits(), d_);
    EXPECT_FALSE(broken.has_value()) << broken->sentence;
    if (!broken) cu::launch(*f, c, args);
    ctx_->synchronize();
    long long v = 0;
    out_.copy_to_host(&v, sizeof v);
    return v;
  }

  static cu::LaunchConfig cfg(cu::Dim3 grid, cu::Dim3 block, unsigned shared = 0) {
    cu::LaunchConfig c;
    c.grid = grid;
    c.block = block;
    c.shared_bytes = shared;
    return c;
  }

  cu::ContextPtr ctx_;
  cu::ModulePtr m_;
  cu::DeviceLimits d_;
  cu::DeviceBuffer out_;
};

std::string eq(const char* attr, long long v) { return std::string(attr) + " = " + std::to_string(v); }

#define EXPECT_HAS(what, part)                                                             \
  do {                                                                                     \
    const std::string wl_what_ = (what);                                                   \
    EXPECT_NE(wl_what_.find(part), std::string::npos) << wl_what_ << " lacks: " << (part); \
  } while (0)

TEST_F(Rules, ZeroDimensions) {
  EXPECT_HAS(rejected("touch", cfg({1, 1, 1}, {0, 1, 1})), "has a zero dimension");
  EXPECT_HAS(rejected("touch", cfg({1, 0, 1}, {32, 1, 1})), "has a zero dimension");
  EXPECT_EQ(launches("touch", cfg({1, 1, 1}, {1, 1, 1})), 1);
}

TEST_F(Rules, BlockDimensions) {
  const unsigned x = d_.max_block_dim[0], y = d_.max_block_dim[1], z = d_.max_block_dim[2];
  EXPECT_HAS(rejected("touch", cfg({1, 1, 1}, {x + 1, 1, 1})), eq("max_block_dim_x", x));
  EXPECT_HAS(rejected("touch", cfg({1, 1, 1}, {1, y + 1, 1})), eq("max_block_dim_y", y));
  EXPECT_HAS(rejected("touch", cfg({1, 1, 1}, {1, 1, z + 1})), eq("max_block_dim_z", z));
  EXPECT_EQ(launches("touch", cfg({1, 1, 1}, {x, 1, 1})), 1);
  EXPECT_EQ(launches("touch", cfg({1, 1, 1}, {1, y, 1})), 1);
  EXPECT_EQ(launches("touch", cfg({1, 1, 1}, {1, 1, z})), 1);
}

TEST_F(Rules, ThreadsPerBlock) {
  const unsigned rows = static_cast<unsigned>(d_.max_threads_per_block) / 32;
  EXPECT_HAS(rejected("touch", cfg({1, 1, 1}, {32, rows + 1, 1})),
             eq("threads exceeds max_threads_per_block", d_.max_threads_per_block));
  EXPECT_EQ(launches("touch", cfg({1, 1, 1}, {32, rows, 1})), 1);
}

TEST_F(Rules, KernelLaunchBounds) {
  EXPECT_HAS(rejected("bounded", cfg({1, 1, 1}, {257, 1, 1})),
             "exceeds the kernel's max_threads_per_block = 256");
  EXPECT_EQ(launches("bounded", cfg({1, 1, 1}, {256, 1, 1})), 1);
}

TEST_F(Rules, GridDimensions) {
  const auto gx = static_cast<unsigned>(d_.max_grid_dim[0]);
  const auto gy = static_cast<unsigned>(d_.max_grid_dim[1]);
  const auto gz = static_cast<unsigned>(d_.max_grid_dim[2]);
  if (d_.max_grid_dim[0] < 0xFFFFFFFFLL)
    EXPECT_HAS(rejected("touch", cfg({gx + 1, 1, 1}, {32, 1, 1})), eq("max_grid_dim_x", gx));
  EXPECT_HAS(rejected("touch", cfg({1, gy + 1, 1}, {32, 1, 1})), eq("max_grid_dim_y", gy));
  EXPECT_HAS(rejected("touch", cfg({1, 1, gz + 1}, {32, 1, 1})), eq("max_grid_dim_z", gz));
  // At the y and z limits (65535 tiny blocks each); x at 2^20 to keep the test short.
  EXPECT_EQ(launches("touch", cfg({1, gy, 1}, {32, 1, 1})), 1);
  EXPECT_EQ(launches("touch", cfg({1, 1, gz}, {32, 1, 1})), 1);
  EXPECT_EQ(launches("touch", cfg({1u << 20, 1, 1}, {32, 1, 1})), 1);
}

TEST_F(Rules, SharedMemory) {
  const auto cap = static_cast<unsigned>(d_.max_shared_per_block_optin);
  const char* attr = d_.max_shared_per_block_optin > d_.max_shared_per_block
                         ? "max_shared_memory_per_block_optin"
                         : "max_shared_memory_per_block";
  EXPECT_HAS(rejected("dyn_smem", cfg({1, 1, 1}, {64, 1, 1}, cap + 1)), eq(attr, cap));
  // dyn_smem sums its first 2 ints (0 + 1); the whole opt-in size is reserved.
  EXPECT_EQ(launches("dyn_smem", cfg({2, 1, 1}, {64, 1, 1}, cap)), 1);
}

TEST_F(Rules, Cooperative) {
  if (!d_.cooperative_launch) GTEST_SKIP() << "device has cooperative_launch = 0";
  auto f = m_->function("touch");
  const int per_sm = cu::occupancy(f->limits(), 256, 0, d_).blocks_per_sm;
  const unsigned resident = static_cast<unsigned>(per_sm * d_.multiprocessor_count);
  ASSERT_GT(resident, 0u);
  auto over = cfg({resident + 1, 1, 1}, {256, 1, 1});
  over.cooperative = true;
  EXPECT_HAS(rejected("touch", over), "cooperative grid of " + std::to_string(resident + 1) +
                                          " blocks exceeds the " + std::to_string(resident) +
                                          " co-resident blocks (" + std::to_string(per_sm) + " per SM × " +
                                          std::to_string(d_.multiprocessor_count) + " SMs)");
  // Exactly the resident count: the driver's own cooperative check must agree with ours.
  auto at = cfg({resident, 1, 1}, {256, 1, 1});
  at.cooperative = true;
  EXPECT_EQ(launches("touch", at), 1);
}

}  // namespace
