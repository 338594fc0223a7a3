// stream.hpp: the `cuda.stream` userdata, shared with the kernel binding (a launch may
// name a stream); bind_stream.cpp makes streams, stream_methods.cpp holds their methods.
// Depends on cu/stream.hpp.
#pragma once
#include <lua.hpp>

#include "cu/stream.hpp"

namespace warplab::bind {

inline constexpr const char* kStreamMeta = "warplab.stream";
inline constexpr const char* kEventMeta = "warplab.event";

// The CUstream of the stream at idx (raises when freed); nullptr for nil/none.
CUstream opt_stream(lua_State* L, int idx);

// stream_methods.cpp: registers the stream and event metatables (their methods), and
// cuda.event(), which bind_stream.cpp adds to the cuda table.
void add_stream_metas(lua_State* L);
int cuda_event(lua_State* L);

}  // namespace warplab::bind
