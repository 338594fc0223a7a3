// stream.hpp: the `cuda.stream` userdata, shared with the kernel binding (a launch may
// name a stream). Depends on cu/stream.hpp.
#pragma once
#include <lua.hpp>

#include "cu/stream.hpp"

namespace warplab::bind {

inline constexpr const char* kStreamMeta = "warplab.stream";
inline constexpr const char* kEventMeta = "warplab.event";

// The CUstream of the stream at idx (raises when freed); nullptr for nil/none.
CUstream opt_stream(lua_State* L, int idx);

}  // namespace warplab::bind
