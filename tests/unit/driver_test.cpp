// driver_test.cpp: the driver loader without a GPU: forced-offline mode reports one
// sentence and never crashes; error text falls back to the number without a driver.
#include "cu/driver.hpp"
#include <gtest/gtest.h>
#include <cstdlib>
#include "cu/error.hpp"
#include "test_paths.hpp"  // WARPLAB_SOURCE_DIR, WARPLAB_CUDA_H

TEST(Driver, VersionString) { EXPECT_EQ(warplab::cu::version_string(13000), "13.0"); }
TEST(Driver, ErrorCarriesCallAndObject) {
  warplab::cu::Error e(CUDA_ERROR_OUT_OF_MEMORY, "api().cuMemAlloc(&p, n)", "1024 bytes");
  EXPECT_EQ(e.call(), "cuMemAlloc");
  EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(e.what()).find("cuMemAlloc (1024 bytes) failed"), std::string::npos);
}

// An entry point whose newer ABI is a separate declaration in cuda.h (name_vN, with no
// "#define name ..." mapping the plain name to it) must be requested for an older
// version, or the driver hands back the new ABI behind the old signature. This bit us
// once: cuCtxSynchronize resolved to cuCtxSynchronize_v2(CUcontext) on CUDA 13.
#include <fstream>
#include <regex>
#include <sstream>
// Every entry point warplab resolves, by name (cu/api_list.hpp).
constexpr const char* kApiNames[] = {
#define WARPLAB_CU_NAME(name) #name,
    WARPLAB_CU_API(WARPLAB_CU_NAME)
#undef WARPLAB_CU_NAME
};
TEST(Driver, VersionedEntryPointsAreRequestedWithTheirDeclaredAbi) {
  std::ifstream in(WARPLAB_CUDA_H);
  ASSERT_TRUE(in) << WARPLAB_CUDA_H;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string h = ss.str();
  int checked = 0;
  for (const char* name : kApiNames) {
    const std::string n = name;
    const bool has_vn = std::regex_search(h, std::regex("CUresult CUDAAPI " + n + "_v[0-9]+\\("));
    const bool mapped = std::regex_search(h, std::regex("#define " + n + "\\s"));
    if (has_vn && !mapped) {
      ++checked;
      EXPECT_LT(warplab::cu::api_request_version(n), CUDA_VERSION)
          << n << " has a separately declared newer ABI: request the plain declaration's version";
    }
  }
  EXPECT_GE(checked, 1);  // cuCtxSynchronize at least, on CUDA 13
}
