// array.hpp: the `cuda.array` userdata shared with the kernel binding (which passes
// arrays as pointer arguments and checks their element type). Depends on cu/memory.hpp.
#pragma once
#include <lua.hpp>

#include <cstddef>
#include <memory>

#include "cu/dtype.hpp"
#include "cu/memory.hpp"

namespace warplab::bind {

inline constexpr const char* kArrayMeta = "warplab.array";

struct Array {
  std::shared_ptr<cu::DeviceBuffer> buf;  // shared by views; null once this handle is freed
  cu::DType type = cu::DType::F32;
  std::size_t first = 0;                  // element offset into buf (views)
  std::size_t count = 0;
  bool view = false;

  std::size_t elem() const { return static_cast<std::size_t>(cu::dtype_info(type).size); }
  std::size_t bytes() const { return count * elem(); }
  std::size_t byte_offset() const { return first * elem(); }
  CUdeviceptr ptr() const { return buf->get() + byte_offset(); }
};

// The array at `idx`, raising "attempt to use a freed array" when released.
Array& check_array(lua_State* L, int idx);
// nullptr unless the value at idx is an array (live or freed).
Array* test_array(lua_State* L, int idx);

}  // namespace warplab::bind
