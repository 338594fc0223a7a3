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
  std::size_t first = 0;  // element offset into buf (views)
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

// The element type named by the string at idx ("f32", "float", ...); raises an argument
// error listing the types otherwise.
cu::DType check_dtype(lua_State* L, int idx);
// The element count of cuda.array / cuda.host_array: the integer at idx, or the length of
// the list there; raises unless it is positive and its bytes fit 2^56. `who` names the call.
std::size_t check_count(lua_State* L, int idx, cu::DType t, const char* who);
// Raises "copy needs the same type and length: f32[4] <- i32[4]" unless they match.
void check_same_shape(lua_State* L, cu::DType dst_type, std::size_t dst_n, cu::DType src_type,
                      std::size_t src_n);

}  // namespace warplab::bind
