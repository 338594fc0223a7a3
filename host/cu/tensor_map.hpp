// tensor_map.hpp: a TMA descriptor (CUtensorMap) encoded by the driver from a tiled view of
// global memory: cuTensorMapEncodeTiled's parameters as one struct, and the call. The rules
// those parameters obey are lab's (lab/tensor_map.hpp), checked before this is called.
#pragma once
#include <cuda.h>

#include <array>
#include <cstdint>

namespace warplab::cu {

// cuTensorMapEncodeTiled's arguments: sizes in elements, strides in bytes (the rank - 1
// outer dimensions), dimension 0 the innermost.
struct TiledMapSpec {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  unsigned rank = 1;
  CUdeviceptr address = 0;
  std::array<cuuint64_t, 5> dims{};
  std::array<cuuint64_t, 4> strides{};
  std::array<cuuint32_t, 5> box{};
  std::array<cuuint32_t, 5> element_strides{};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

// The descriptor for `spec` (no interleave), from the loaded driver: a context must be
// current. Throws cu::Error naming cuTensorMapEncodeTiled when the driver lacks it or refuses.
CUtensorMap encode_tiled(const TiledMapSpec& spec);

}  // namespace warplab::cu
