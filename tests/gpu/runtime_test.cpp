// runtime_test.cpp (GPU): primary context retain/release, device buffers (sync, async,
// device-to-device, memset, range and out-of-memory errors), module load and kernel
// enumeration, parameter layout, a launch with verified output, the automatic opt-in
// above 48 KiB of dynamic shared memory, and event timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "cu/attributes.hpp"
#include "cu/driver.hpp"
#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/memory.hpp"
#include "cu/module.hpp"
#include "cu/stream.hpp"
#include "gpu_support.hpp"

namespace {

namespace cu = warplab::cu;
using warplab_gpu::kBasicKernels;

// "what()" contains `part`.
#define EXPECT_HAS(what, part)                                                             \
  do {                                                                                     \
    const std::string wl_what_ = (what);                                                   \
    EXPECT_NE(wl_what_.find(part), std::string::npos) << wl_what_ << " lacks: " << (part); \
  } while (0)

TEST(Context, RetainSharedAndReleased) {
  CUdevice dev = 0;
  ASSERT_EQ(cu::api().cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  unsigned flags = 0;
  int active = -1;
  {
    auto a = cu::primary_context(0);
    auto b = cu::primary_context(0);
    EXPECT_EQ(a.get(), b.get());  // one Context per device while held
    EXPECT_NE(a->get(), nullptr);
    ASSERT_EQ(cu::api().cuDevicePrimaryCtxGetState(dev, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 1);
    // A buffer keeps the context alive after the last named holder goes.
    cu::DeviceBuffer buf(a, 256);
    a.reset();
    b.reset();
    ASSERT_EQ(cu::api().cuDevicePrimaryCtxGetState(dev, &flags, &active), CUDA_SUCCESS);
    EXPECT_EQ(active, 1);
    buf.copy_from_host(std::vector<char>(256, 7).data(), 256);
  }
  ASSERT_EQ(cu::api().cuDevicePrimaryCtxGetState(dev, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 0) << "the primary context should be released with its last holder";
}

TEST(Context, BadOrdinalIsOneSentence) {
  int count = 0;
  ASSERT_EQ(cu::api().cuDeviceGetCount(&count), CUDA_SUCCESS);
  try {
    cu::primary_context(count);
    FAIL() << "expected cu::Error";
  } catch (const cu::Error& e) {
    EXPECT_HAS(e.what(), "device " + std::to_string(count) + " does not exist");
  }
}

TEST(Memory, RoundTripsAndErrors) {
  auto ctx = cu::primary_context(0);
  const std::size_t n = 1 << 18;
  std::vector<int> host(n), back(n, 0);
  std::iota(host.begin(), host.end(), 5);
  cu::DeviceBuffer a(ctx, n * sizeof(int)), b(ctx, n * sizeof(int));
  EXPECT_EQ(a.size(), n * sizeof(int));
  a.copy_from_host(host.data(), a.size());
  b.copy_from(a, a.size());
  b.copy_to_host(back.data(), b.size());
  EXPECT_EQ(back, host);

  // Async through pinned staging on a stream, at an offset.
  cu::Stream s(ctx);
  cu::PinnedBuffer pin(ctx, 64 * sizeof(int));
  std::memset(pin.data(), 0, pin.size());
  WL_CU_CHECK(cu::api().cuMemsetD8Async(b.get() + 4 * sizeof(int), 0xFF, 16, s.get()), "memset");
  b.copy_to_host_async(pin.data(), pin.size(), s.get());
  s.synchronize();
  const int* p = static_cast<const int*>(pin.data());
  EXPECT_EQ(p[3], host[3]);
  EXPECT_EQ(p[4], -1);
  EXPECT_EQ(p[7], -1);
  EXPECT_EQ(p[8], host[8]);

  try {
    a.copy_to_host(back.data(), 16, a.size() - 8);
    FAIL() << "expected a range error";
  } catch (const cu::Error& e) {
    EXPECT_EQ(std::string(e.what()), "copy to host of 16 bytes at offset " + std::to_string(a.size() - 8) +
                                         " exceeds the device buffer's " + std::to_string(a.size()) +
                                         " bytes");
  }
  a.free();
  a.free();  // idempotent
  EXPECT_THROW(a.copy_from_host(host.data(), 4), cu::Error);
  std::size_t free_bytes = 0, total_bytes = 0;
  WL_CU_CHECK(cu::api().cuMemGetInfo(&free_bytes, &total_bytes), "device 0");
  const std::size_t too_much = total_bytes * 2;
  try {
    cu::DeviceBuffer huge(ctx, too_much);
    FAIL() << "expected out of memory";
  } catch (const cu::Error& e) {
    EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_HAS(e.what(), "cuMemAlloc (" + cu::format_bytes(too_much) + " requested, ");
    EXPECT_HAS(e.what(), "free of");
  }
}

TEST(Module, LoadEnumerateAndParams) {
  auto ctx = cu::primary_context(0);
  auto m = warplab_gpu::load(ctx, kBasicKernels, "basic.cu");
  // The kernels the module enumerated are the ones an unknown name's sentence lists.
  try {
    m->function("no_such_kernel");
    FAIL() << "expected cu::Error";
  } catch (const cu::Error& e) {
    const std::string what = e.what();
    EXPECT_HAS(what, "module 'basic.cu' has no kernel 'no_such_kernel': it has ");
    for (const char* want : {"iota_k", "_Z5scalePffi", "params_k", "touch", "bounded", "dyn_smem"})
      EXPECT_HAS(what, want);
    EXPECT_EQ(std::count(what.begin(), what.end(), ','), 6) << what;  // 7 kernels
  }

  auto scale = m->function("_Z5scalePffi");
  EXPECT_EQ(scale.get(), m->function("_Z5scalePffi").get());  // one Function per kernel
  ASSERT_TRUE(scale->params_known());
  ASSERT_EQ(scale->params().size(), 3u);
  EXPECT_EQ(scale->params()[1].offset, 8u);
  EXPECT_EQ(scale->params()[2].size, 4u);

  // char, short, int, long long, double, pointer, 12-byte struct: natural alignment.
  auto pk = m->function("params_k");
  const std::vector<std::pair<std::size_t, std::size_t>> want = {{0, 1},  {2, 2},  {4, 4},  {8, 8},
                                                                 {16, 8}, {24, 8}, {32, 12}};
  ASSERT_EQ(pk->params().size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(pk->params()[i].offset, want[i].first) << "parameter " << i;
    EXPECT_EQ(pk->params()[i].size, want[i].second) << "parameter " << i;
  }
  EXPECT_EQ(pk->params().back().offset + pk->params().back().size, 44u);  // the parameter buffer's end

  EXPECT_EQ(m->function("bounded")->attributes().max_threads_per_block, 256);
  EXPECT_GT(m->function("iota_k")->attributes().num_regs, 0);
  try {
    m->function("nope");
    FAIL() << "expected cu::Error";
  } catch (const cu::Error& e) {
    EXPECT_HAS(e.what(), "module 'basic.cu' has no kernel 'nope': it has ");
    EXPECT_HAS(e.what(), "iota_k");
  }
  // A kernel handle keeps its module loaded after the module pointer is dropped.
  auto iota = m->function("iota_k");
  m.reset();
  cu::DeviceBuffer out(ctx, 64 * sizeof(int));
  CUdeviceptr p = out.get();
  int n = 64;
  void* args[] = {&p, &n};
  cu::LaunchConfig c;
  c.block.x = 64;
  cu::launch(*iota, c, args);
  std::vector<int> host(64);
  out.copy_to_host(host.data(), out.size());
  EXPECT_EQ(host[63], 3 * 63 + 1);
}

TEST(Module, BrokenCubinNamesTheModule) {
  auto ctx = cu::primary_context(0);
  // An ELF header and nothing else: no sections, no code.
  std::string image(64, '\0');
  image.replace(0, 4,
                "\x7f"
                "ELF");
  image[4] = 2;  // 64-bit
  image[5] = 1;  // little-endian
  image[6] = 1;  // version
  try {
    cu::Module::load_cubin(ctx, image, "broken.cubin");
    FAIL() << "expected cu::Error";
  } catch (const cu::Error& e) {
    EXPECT_NE(e.code(), CUDA_SUCCESS);
    EXPECT_HAS(e.what(), "cuModuleLoadDataEx (module 'broken.cubin', cubin) failed: ");
  }
}

TEST(Launch, VerifiedOutput) {
  auto ctx = cu::primary_context(0);
  auto m = warplab_gpu::load(ctx, kBasicKernels, "basic.cu");
  auto f = m->function("iota_k");
  int n = 10007;
  cu::DeviceBuffer out(ctx, n * sizeof(int));
  out.memset(0);
  CUdeviceptr p = out.get();
  void* args[] = {&p, &n};
  cu::LaunchConfig c;
  c.grid.x = (n + 255) / 256;
  c.block.x = 256;
  ASSERT_FALSE(cu::check(c, f->limits(), cu::device_limits(warplab_gpu::live_snapshot())).has_value());
  cu::launch(*f, c, args);
  ctx->synchronize();
  std::vector<int> host(n);
  out.copy_to_host(host.data(), out.size());
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 3 * i + 1) << "element " << i;
}

TEST(Launch, DynamicSharedAbove48KiBOptsIn) {
  auto ctx = cu::primary_context(0);
  const auto d = cu::device_limits(warplab_gpu::live_snapshot());
  if (d.max_shared_per_block_optin <= 49152) GTEST_SKIP() << "device has no shared-memory opt-in";
  auto m = warplab_gpu::load(ctx, kBasicKernels, "basic.cu");
  auto f = m->function("dyn_smem");
  int n_ints = 100 * 1024 / 4;  // 100 KiB
  const int blocks = 4;
  cu::DeviceBuffer out(ctx, blocks * sizeof(long long));
  CUdeviceptr p = out.get();
  void* args[] = {&p, &n_ints};
  cu::LaunchConfig c;
  c.grid.x = blocks;
  c.block.x = 256;
  c.shared_bytes = 100 * 1024;
  EXPECT_LT(f->dynamic_shared_limit(), c.shared_bytes);
  ASSERT_FALSE(cu::check(c, f->limits(), d).has_value());
  cu::launch(*f, c, args);
  ctx->synchronize();
  EXPECT_EQ(f->dynamic_shared_limit(), c.shared_bytes);
  std::vector<long long> host(blocks);
  out.copy_to_host(host.data(), out.size());
  const long long want = static_cast<long long>(n_ints) * (n_ints - 1) / 2;
  for (int b = 0; b < blocks; ++b) EXPECT_EQ(host[b], want) << "block " << b;
}

TEST(Events, TimingIsSane) {
  auto ctx = cu::primary_context(0);
  auto m = warplab_gpu::load(ctx, kBasicKernels, "basic.cu");
  auto f = m->function("iota_k");
  cu::Stream s(ctx);
  cu::Event start(ctx), end(ctx);
  int n = 1 << 20;
  cu::DeviceBuffer out(ctx, n * sizeof(int));
  CUdeviceptr p = out.get();
  void* args[] = {&p, &n};
  cu::LaunchConfig c;
  c.grid.x = n / 256;
  c.block.x = 256;
  c.stream = s.get();
  start.record(s.get());
  cu::launch(*f, c, args);
  end.record(s.get());
  const float ms = cu::elapsed_ms(start, end);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 1000.0f);
  EXPECT_TRUE(end.query());
  EXPECT_TRUE(s.query());
  std::printf("iota over 2^20 ints: %.4f ms between events\n", ms);
}

}  // namespace
