// resources_gpu_test.cpp (GPU): for every kernel in kernels_src/ and the test kernels
// (tests/data/kernels/resources.cu, with and without a register cap), the resources warplab
// reads from the CUBIN equal what the driver reports through cuFuncGetAttribute:
// NUM_REGS, SHARED_SIZE_BYTES, LOCAL_SIZE_BYTES, CONST_SIZE_BYTES, and
// MAX_THREADS_PER_BLOCK (the register rule capped by __launch_bounds__). Each compile runs
// twice, the second answered by warm caches; a disagreement is a failure, with both numbers.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cu/context.hpp"
#include "cu/function.hpp"
#include "cu/module.hpp"
#include "cu/occupancy.hpp"
#include "gpu_support.hpp"
#include "rtc/cache.hpp"
#include "rtc/compile.hpp"
#include "rtc/elf.hpp"
#include "rtc/toolkit.hpp"

namespace {

namespace cu = warplab::cu;
namespace rtc = warplab::rtc;
namespace fs = std::filesystem;

std::vector<fs::path> sources() {
  const fs::path k = rtc::kernels_dir();
  std::vector<fs::path> out;
  if (k.empty()) return out;
  for (const auto& e : fs::recursive_directory_iterator(k))
    if (e.is_regular_file() && e.path().extension() == ".cu") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  out.push_back(k.parent_path() / "tests/data/kernels/resources.cu");
  return out;
}

// The driver's MAX_THREADS_PER_BLOCK from the binary alone: the largest multiple of the
// warp size whose registers fit an SM, capped by __launch_bounds__ / .reqntid.
int expected_max_threads(const rtc::ElfKernel& e, const cu::DeviceLimits& d) {
  const cu::KernelLimits k{e.registers.value_or(0), static_cast<int>(e.shared_bytes), 0, 1};
  int best = 0;
  for (int b = d.warp_size; b <= d.max_threads_per_block; b += d.warp_size)
    if (cu::occupancy(k, b, 0, d).blocks_per_sm > 0) best = b;
  for (const auto& dims : {e.max_threads, e.reqntid})
    if (dims[0] > 0)
      best = std::min<long long>(best, 1LL * dims[0] * std::max(1u, dims[1]) * std::max(1u, dims[2]));
  return best;
}

TEST(Resources, CubinNumbersEqualTheDriversForEveryKernel) {
  const auto ctx = cu::primary_context(0);
  const cu::DeviceLimits d = cu::device_limits(warplab_gpu::live_snapshot());
  const std::vector<fs::path> files = sources();
  ASSERT_GT(files.size(), 10u) << "kernels_src not found next to the test binary";
  const fs::path cache_dir = fs::temp_directory_path() / ("warplab-res-" + std::to_string(getpid()));
  rtc::Cache cache(cache_dir);
  int checked = 0, mismatches = 0;
  for (const fs::path& f : files) {
    for (int cap : {0, 32}) {
      for (int pass = 0; pass < 2; ++pass) {  // pass 1: NVRTC's and warplab's caches are warm
        rtc::Options o;
        o.arch = warplab_gpu::device_arch();
        o.max_registers = cap;
        const rtc::CompileResult r = rtc::compile(rtc::load_source(f), o, &cache);
        ASSERT_TRUE(r.ok) << f << "\n" << r.log;
        EXPECT_EQ(r.from_cache, pass == 1) << f;
        for (const std::string& n : r.resource_notes) ADD_FAILURE() << f << ": " << n;
        const auto elf = rtc::read_cubin(r.cubin);
        const auto mod = cu::Module::load_cubin(ctx, std::string_view(r.cubin.data(), r.cubin.size()),
                                                f.filename().string());
        for (const std::string& name : r.entries) {
          const rtc::KernelResources* k = r.resources(name);
          const rtc::ElfKernel* e = rtc::find_kernel(elf, name);
          ASSERT_TRUE(k && e) << f << " " << name;
          ASSERT_TRUE(k->complete()) << f << " " << name << ": a number is unknown";
          const cu::FunctionAttributes& a = mod->function(name)->attributes();
          const int want_threads = expected_max_threads(*e, d);
          const bool ok = *k->registers == a.num_regs && *k->shared_bytes == a.shared_size_bytes &&
                          *k->stack_bytes == a.local_size_bytes && *k->const_bytes == a.const_size_bytes &&
                          want_threads == a.max_threads_per_block;
          if (!ok) ++mismatches;
          if (!ok || pass == 0)
            std::printf(
                "%s %-40s cap %2d  regs %3d/%3d  shared %6ld/%6d  local %5ld/%5d  const %4ld/%4d  "
                "max_threads %4d/%4d%s\n",
                ok ? "ok  " : "DIFF", (f.filename().string() + ":" + name).substr(0, 40).c_str(), cap,
                *k->registers, a.num_regs, *k->shared_bytes, a.shared_size_bytes, *k->stack_bytes,
                a.local_size_bytes, *k->const_bytes, a.const_size_bytes, want_threads,
                a.max_threads_per_block, pass ? " (warm)" : "");
          ++checked;
        }
      }
    }
  }
  std::error_code ec;
  fs::remove_all(cache_dir, ec);
  std::printf("CUBIN vs cuFuncGetAttribute: %d kernels checked (cold and warm), %d mismatches\n", checked,
              mismatches);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(checked, 40);
}

}  // namespace
