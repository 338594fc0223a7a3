// host_array.hpp: the `cuda.host_array` userdata: typed host memory, page-locked
// (cuMemHostAlloc) or pageable, that device arrays copy to and from (a:copy(h), h:copy(a)).
// Shared with the array bindings, which accept it as a copy's source or destination.
// Depends on cu/host_buffer.hpp, cu/dtype.hpp.
#pragma once
#include <lua.hpp>

#include <cstddef>
#include <memory>

#include "cu/dtype.hpp"
#include "cu/host_buffer.hpp"

namespace warplab::bind {

inline constexpr const char* kHostArrayMeta = "warplab.host_array";

struct HostArray {
  std::shared_ptr<cu::HostBuffer> buf;  // shared by views; null once this handle is freed
  cu::DType type = cu::DType::F32;
  std::size_t first = 0;  // element offset into buf (views)
  std::size_t count = 0;
  bool view = false;

  std::size_t elem() const { return static_cast<std::size_t>(cu::dtype_info(type).size); }
  std::size_t bytes() const { return count * elem(); }
  std::size_t byte_offset() const { return first * elem(); }
  unsigned char* data() const { return buf->data() + byte_offset(); }
};

// The host array at `idx`, raising "attempt to use a freed host array" when released.
HostArray& check_host_array(lua_State* L, int idx);
// nullptr unless the value at idx is a host array (live or freed).
HostArray* test_host_array(lua_State* L, int idx);

}  // namespace warplab::bind
