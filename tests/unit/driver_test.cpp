// driver_test.cpp: the driver loader without a GPU: forced-offline mode reports one
// sentence and never crashes; error text falls back to the number without a driver.
#include <gtest/gtest.h>
#include <cstdlib>
#include "cu/driver.hpp"
#include "cu/error.hpp"

TEST(Driver, VersionString) { EXPECT_EQ(warplab::cu::version_string(13000), "13.0"); }
TEST(Driver, ErrorCarriesCallAndObject) {
  warplab::cu::Error e(CUDA_ERROR_OUT_OF_MEMORY, "api().cuMemAlloc(&p, n)", "1024 bytes");
  EXPECT_EQ(e.call(), "cuMemAlloc");
  EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(e.what()).find("cuMemAlloc (1024 bytes) failed"), std::string::npos);
}
