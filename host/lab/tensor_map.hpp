// tensor_map.hpp: cuda.tensor_map without Lua: a tiled view of a cuda.array for the Tensor
// Memory Accelerator, its rules (each broken one is one sentence, checked offline too), and
// the descriptor the driver encodes from it on a GPU. A kernel takes the descriptor as
// `const __grid_constant__ CUtensorMap`; the launch copies its 128 bytes.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cu/tensor_map.hpp"
#include "lab/array.hpp"

namespace warplab::lab {

// What a script asks for, as read from its options table: sizes in elements (dimension 1
// innermost, as in cuTensorMapEncodeTiled), strides in bytes for dimensions 2..rank (empty:
// rows packed one after another), the swizzle span in bytes (0 none, 32, 64, 128), the L2
// promotion in bytes (0, 64, 128, 256), out-of-bounds elements filled with NaN instead of 0,
// and the element type the script names (empty: the array's).
struct TensorMapRequest {
  std::vector<std::int64_t> dims, box, strides, element_strides;
  std::int64_t swizzle = 0, l2_promotion = 0;
  bool oob_nan = false;
  std::string type;
};

// A tensor map: the array's buffer (kept, and asked whether it was freed), the view, and on
// a GPU the encoded descriptor.
struct TensorMap {
  std::shared_ptr<cu::DeviceBuffer> buf;
  cu::DType type = cu::DType::U8;
  cu::TiledMapSpec spec;
  std::size_t box_bytes = 0;  // what one copy of a box moves
  bool encoded = false;       // made on a GPU: `map` holds the driver's descriptor
  CUtensorMap map{};          // 128-byte aligned by its own declaration (cuda.h)
  bool freed() const { return !buf || !buf->valid(); }
};

// The map over array `a` as `r` asks, or lab::Error with the first broken rule's sentence
// ("cuda.tensor_map: box[1] = 300 elements: each box dimension is 1 to 256"). With `encode`
// (a GPU, its context current), the driver encodes the descriptor too.
std::shared_ptr<TensorMap> make_tensor_map(const DeviceArray& a, const TensorMapRequest& r, bool encode);

// "u32 {256, 65536}, box {256, 32} = 32 KiB, strides {1024}, swizzle none": one line.
std::string describe(const TensorMap& m);

// A parameter of this spelling takes a tensor map (cuda.h's typedef, or its struct).
inline bool is_tensor_map_type(const std::string& spelling) {
  return spelling == "CUtensorMap" || spelling == "CUtensorMap_st";
}

}  // namespace warplab::lab
