// main.cpp: entry point of warplab_gpu_tests. Listing the tests (--gtest_list_tests, as
// CTest's discovery does at build time) needs no GPU. Otherwise, without a driver or a
// device it prints one "skipped: <reason>" line and returns 77 (CTest's skip code); with
// one it runs the GoogleTest suites in tests/gpu. Death tests re-execute this binary
// ("threadsafe"), so a test that wrecks its CUDA context (the planted illegal address)
// does it in a child.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cu/driver.hpp"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) {
      ::testing::InitGoogleTest(&argc, argv);
      return RUN_ALL_TESTS();  // lists and returns 0
    }
  if (const auto why = warplab::cu::driver_unavailable()) {
    std::printf("skipped: %s\n", why->c_str());
    return 77;
  }
  int count = 0;
  if (warplab::cu::api().cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    std::printf("skipped: no CUDA device: the driver found no GPU\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  return RUN_ALL_TESTS();
}
