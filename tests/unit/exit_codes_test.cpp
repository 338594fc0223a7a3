// exit_codes_test.cpp: the one table from the kind of a driver-layer error to its exit
// code (app/cli/exit_codes.hpp): every kind has a row, and the errors warplab throws land on
// the code docs/exit-codes.md gives them. No GPU.
#include <gtest/gtest.h>

#include "app/cli/exit_codes.hpp"
#include "cu/error.hpp"

namespace {

using warplab::app::exit_code_for;
using warplab::cu::Error;
using warplab::cu::ErrorKind;

TEST(ExitCodes, EveryKindHasOneRow) {
  for (const ErrorKind k : {ErrorKind::bad_input, ErrorKind::no_device, ErrorKind::driver}) {
    int rows = 0;
    for (const auto& row : warplab::app::kExitForKind) rows += row.kind == k;
    EXPECT_EQ(rows, 1) << "kind " << static_cast<int>(k);
    EXPECT_NE(exit_code_for(k), warplab::app::kInternal);
  }
}

TEST(ExitCodes, KindOfAnError) {
  // A sentence of ours (a profile, a broken limit): bad input, exit 4.
  const Error bad("profile 'x.json': field 'name' is missing");
  EXPECT_EQ(bad.kind(), ErrorKind::bad_input);
  EXPECT_EQ(exit_code_for(bad), 4);
  // No driver, no GPU, no such device: exit 3.
  EXPECT_EQ(exit_code_for(Error("libcuda.so.1 could not be loaded", CUDA_ERROR_NO_DEVICE)), 3);
  EXPECT_EQ(exit_code_for(Error("device 7 does not exist", CUDA_ERROR_INVALID_DEVICE)), 3);
  EXPECT_EQ(Error(CUDA_ERROR_NOT_INITIALIZED, "cuInit(0)").kind(), ErrorKind::no_device);
  // A driver call that failed: exit 6, whatever the code.
  const Error oom(CUDA_ERROR_OUT_OF_MEMORY, "api().cuMemAlloc(&p, n)", "1 GiB");
  EXPECT_EQ(oom.kind(), ErrorKind::driver);
  EXPECT_EQ(exit_code_for(oom), 6);
  EXPECT_EQ(exit_code_for(Error("cuModuleLoadDataEx failed", CUDA_ERROR_INVALID_PTX)), 6);
}

}  // namespace
