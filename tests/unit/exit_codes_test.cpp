// exit_codes_test.cpp: the one table from the kind of an error to its exit code
// (app/cli/exit_codes.hpp): every kind has one row, and the errors warplab throws land on
// the code docs/exit-codes.md gives them. No GPU.
#include <gtest/gtest.h>

#include <set>

#include "app/cli/exit_codes.hpp"
#include "cu/cupti.hpp"
#include "cu/error.hpp"
#include "rtc/error.hpp"
#include "sys/error.hpp"

namespace {

using warplab::ErrorKind;
using warplab::app::exit_code_for;

TEST(ExitCodes, EveryKindHasOneRow) {
  std::set<ErrorKind> seen;
  for (const warplab::KindName& kind : warplab::kErrorKinds) {
    int rows = 0;
    for (const auto& row : warplab::app::kExitForKind) rows += row.kind == kind.kind;
    EXPECT_EQ(rows, 1) << kind.name;
    EXPECT_TRUE(seen.insert(kind.kind).second) << kind.name << " listed twice in kErrorKinds";
    EXPECT_EQ(warplab::kind_name(kind.kind), kind.name);
    EXPECT_EQ(warplab::kind_named(kind.name), kind.kind) << "names go both ways";
  }
  EXPECT_EQ(std::size(warplab::app::kExitForKind), seen.size()) << "a row for a kind not in kErrorKinds";
  EXPECT_EQ(warplab::kind_named("no_device"), std::nullopt);
}

TEST(ExitCodes, EachKindItsDocumentedCode) {
  // docs/exit-codes.md, row by row.
  EXPECT_EQ(exit_code_for(ErrorKind::failed), 1);
  EXPECT_EQ(exit_code_for(ErrorKind::usage), 2);
  EXPECT_EQ(exit_code_for(ErrorKind::no_gpu), 3);
  EXPECT_EQ(exit_code_for(ErrorKind::not_in_profile), 3);
  EXPECT_EQ(exit_code_for(ErrorKind::bad_input), 4);
  EXPECT_EQ(exit_code_for(ErrorKind::parameter), 4);
  EXPECT_EQ(exit_code_for(ErrorKind::compile), 5);
  EXPECT_EQ(exit_code_for(ErrorKind::driver), 6);
  EXPECT_EQ(exit_code_for(ErrorKind::profiler), 6);
  EXPECT_EQ(exit_code_for(ErrorKind::timeout), 7);
  EXPECT_EQ(exit_code_for(ErrorKind::tool), 8);
  EXPECT_EQ(exit_code_for(ErrorKind::internal), 70);
}

TEST(ExitCodes, KindOfADriverError) {
  using warplab::cu::Error;
  // A sentence of ours (a profile, a broken limit): bad input, exit 4.
  const Error bad("profile 'x.json': field 'name' is missing");
  EXPECT_EQ(bad.kind(), ErrorKind::bad_input);
  EXPECT_EQ(exit_code_for(bad), 4);
  // No driver, no GPU, no such device: exit 3.
  EXPECT_EQ(exit_code_for(Error("libcuda.so.1 could not be loaded", CUDA_ERROR_NO_DEVICE)), 3);
  EXPECT_EQ(exit_code_for(Error("device 7 does not exist", CUDA_ERROR_INVALID_DEVICE)), 3);
  EXPECT_EQ(Error(CUDA_ERROR_NOT_INITIALIZED, "cuInit(0)").kind(), ErrorKind::no_gpu);
  // A driver call that failed: exit 6, whatever the code.
  const Error oom(CUDA_ERROR_OUT_OF_MEMORY, "api().cuMemAlloc(&p, n)", "1 GiB");
  EXPECT_EQ(oom.kind(), ErrorKind::driver);
  EXPECT_EQ(exit_code_for(oom), 6);
  EXPECT_EQ(exit_code_for(Error("cuModuleLoadDataEx failed", CUDA_ERROR_INVALID_PTX)), 6);
  // A value a profile does not know: exit 3, as a GPU-only call offline.
  EXPECT_EQ(exit_code_for(Error("attribute 'x' is unknown for profile sm_86", ErrorKind::not_in_profile)), 3);
}

TEST(ExitCodes, KindOfTheOtherLibrariesErrors) {
  // CUPTI refusing is the profiler's, a misspelt metric bad input, no CUPTI no GPU's.
  EXPECT_EQ(exit_code_for(warplab::cu::CuptiError(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiX")), 6);
  EXPECT_EQ(exit_code_for(warplab::cu::CuptiError(CUPTI_ERROR_INVALID_METRIC_NAME, "cuptiX")), 4);
  EXPECT_EQ(exit_code_for(warplab::cu::CuptiError("no CUPTI library", ErrorKind::no_gpu)), 3);
  // NVRTC: our sentence is bad input, NVRTC failing internal, a missing tool exit 8.
  EXPECT_EQ(exit_code_for(warplab::rtc::Error("unsupported architecture 'sm_1'")), 4);
  EXPECT_EQ(exit_code_for(warplab::rtc::Error("nvrtcCompileProgram failed", NVRTC_ERROR_OUT_OF_MEMORY)), 70);
  EXPECT_EQ(exit_code_for(warplab::rtc::Error(ErrorKind::tool, "--sass: neither cuobjdump nor nvdisasm")), 8);
  // Every subclass is one warplab::Error, caught once by main.
  try {
    throw warplab::cu::Error(CUDA_ERROR_LAUNCH_FAILED, "cuLaunchKernel");
  } catch (const warplab::Error& e) {
    EXPECT_EQ(exit_code_for(e), 6);
  }
}

}  // namespace
