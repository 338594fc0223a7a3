// host_array.hpp: the `cuda.host_array` userdata: typed host memory, page-locked
// (cuMemHostAlloc) or pageable, that device arrays copy to and from (a:copy(h), h:copy(a)).
// Shared with the array bindings, which accept it as a copy's source or destination. The
// record itself is lab::HostArray (lab/array.hpp).
#pragma once
#include <lua.hpp>

#include "lab/array.hpp"

namespace warplab::bind {

inline constexpr const char* kHostArrayMeta = "warplab.host_array";

using HostArray = lab::HostArray;

// The host array at `idx`, raising "attempt to use a freed host array" when released.
HostArray& check_host_array(lua_State* L, int idx);
// nullptr unless the value at idx is a host array (live or freed).
HostArray* test_host_array(lua_State* L, int idx);

// Within the cuda.host_array binding: a new empty host array userdata on the stack
// (bind_host_array.cpp), and from bind_host_array_methods.cpp :free (also __close),
// __gc, and the methods table's entries (into the table on top of the stack).
HostArray& push_host_array(lua_State* L);
int host_release(lua_State* L);
int host_gc(lua_State* L);
void add_host_array_methods(lua_State* L);

}  // namespace warplab::bind
