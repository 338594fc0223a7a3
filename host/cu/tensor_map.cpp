// tensor_map.cpp: cuTensorMapEncodeTiled through the dlopen-ed driver (tensor_map.hpp).
#include "cu/tensor_map.hpp"

#include "cu/driver.hpp"
#include "cu/error.hpp"

namespace warplab::cu {

CUtensorMap encode_tiled(const TiledMapSpec& s) {
  const Api& a = api();
  if (!a.cuTensorMapEncodeTiled)
    throw Error("this NVIDIA driver has no cuTensorMapEncodeTiled (tensor maps need CUDA 12.0+)",
                CUDA_ERROR_NOT_SUPPORTED);
  CUtensorMap map{};
  WL_CU_CHECK(
      a.cuTensorMapEncodeTiled(&map, s.dtype, s.rank, reinterpret_cast<void*>(s.address), s.dims.data(),
                               s.strides.data(), s.box.data(), s.element_strides.data(),
                               CU_TENSOR_MAP_INTERLEAVE_NONE, s.swizzle, s.l2_promotion, s.oob_fill),
      "a tensor map");
  return map;
}

}  // namespace warplab::cu
