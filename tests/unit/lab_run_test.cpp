// lab_run_test.cpp: lab::Run's target chosen on first use, what keeps a script that never
// touches the GPU from starting the driver: the chooser runs only when the target, whether
// it is offline, or the limits are asked, and once; lost() and the options never ask; a
// chooser that throws is asked again. No GPU, no Lua.
#include <gtest/gtest.h>

#include <string>

#include "cu/error.hpp"
#include "cu/profile.hpp"
#include "lab/run.hpp"
#include "lab_test_util.hpp"

using namespace warplab;
using test::error_of;

namespace {

lab::Options no_cache() {
  lab::Options o;
  o.cache = false;  // nothing on disk
  return o;
}

lab::Target h100_profile() { return {cu::load_profile("h100"), true, "working from profile 'h100'"}; }

}  // namespace

TEST(LabRun, TheTargetIsChosenOnFirstUseAndOnce) {
  int asked = 0;
  lab::Run run(no_cache(), [&] {
    ++asked;
    return h100_profile();
  });
  EXPECT_FALSE(run.lost());
  EXPECT_FALSE(run.opts.cache);
  EXPECT_EQ(asked, 0) << "nothing above needs the target";
  EXPECT_TRUE(run.offline());
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(run.target().arch(), "sm_90");
  EXPECT_EQ(run.offline_reason(), "working from profile 'h100'");
  EXPECT_EQ(run.limits().max_threads_per_block, 1024);
  EXPECT_EQ(asked, 1);
}

TEST(LabRun, TheLimitsChooseTheTargetFirst) {
  int asked = 0;
  lab::Run run(no_cache(), [&] {
    ++asked;
    return h100_profile();
  });
  EXPECT_EQ(run.limits().cc_major, 9);  // the launch path's first question
  EXPECT_EQ(asked, 1);
}

TEST(LabRun, AGivenTargetNeedsNoChooser) {
  lab::Run run(no_cache(), h100_profile());
  EXPECT_TRUE(run.offline());
  EXPECT_EQ(run.target().arch(), "sm_90");
}

TEST(LabRun, AChooserThatThrowsIsAskedAgain) {
  int asked = 0;
  lab::Run run(no_cache(), [&] {
    if (++asked == 1)
      throw cu::Error("the NVIDIA driver is installed but cuInit failed: X", CUDA_ERROR_UNKNOWN);
    return h100_profile();
  });
  EXPECT_THROW((void)run.target(), cu::Error);
  EXPECT_EQ(run.target().arch(), "sm_90");  // not an empty target left behind
  EXPECT_EQ(asked, 2);
}

TEST(LabRun, RequireGpuSaysWhyTheChosenTargetIsOffline) {
  lab::Run run(no_cache(), [] { return h100_profile(); });
  EXPECT_EQ(error_of([&] { run.require_gpu("cuda.array"); }),
            "no CUDA device: cuda.array needs a GPU (working from profile 'h100')");
}
