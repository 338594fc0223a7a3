// fault_test.cpp (GPU): a planted illegal address surfaces as CUDA_ERROR_ILLEGAL_ADDRESS
// at the next synchronization, not at the launch. The fault leaves the context unusable,
// so it runs as a death test: GoogleTest re-executes this binary ("threadsafe" style,
// set in main.cpp) and the child process takes the fault.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "cu/error.hpp"
#include "cu/launch.hpp"
#include "cu/module.hpp"
#include "cu/stream.hpp"
#include "gpu_support.hpp"

namespace {

namespace cu = warplab::cu;

// Exit codes of the child: 0 = the fault surfaced at the sync with the right code.
[[noreturn]] void plant_fault() {
  try {
    auto ctx = cu::primary_context(0);
    auto m = warplab_gpu::load(ctx, warplab_gpu::kBasicKernels, "basic.cu");
    auto f = m->function("fault");
    cu::Stream s(ctx);
    CUdeviceptr bad = 0x10;  // never a valid device address
    void* args[] = {&bad};
    cu::LaunchConfig c;
    c.block.x = 32;
    c.stream = s.get();
    cu::launch(*f, c, args);  // asynchronous: must not report the fault yet
    std::fprintf(stderr, "launch returned\n");
    s.synchronize();
    std::fprintf(stderr, "no fault reported\n");
    std::_Exit(2);
  } catch (const cu::Error& e) {
    std::fprintf(stderr, "%s [code %d]\n", e.what(), static_cast<int>(e.code()));
    // Leave without destructors: every driver call fails on this context now.
    std::_Exit(e.code() == CUDA_ERROR_ILLEGAL_ADDRESS ? 0 : 1);
  }
}

TEST(FaultDeathTest, IllegalAddressSurfacesAtSync) {
  EXPECT_EXIT(plant_fault(), ::testing::ExitedWithCode(0),
              "launch returned\n.*cuStreamSynchronize \\(stream\\) failed: CUDA_ERROR_ILLEGAL_ADDRESS");
}

}  // namespace
