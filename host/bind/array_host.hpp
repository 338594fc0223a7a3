// array_host.hpp: moving array elements between Lua values and device memory:
// element conversion with range checks, and the :get/:set/:fill/:iota/:random methods.
#pragma once
#include <lua.hpp>

#include "bind/array.hpp"

namespace warplab::bind {

// Pushes one element read from host bytes `src` (integer or float per type).
void push_element(lua_State* L, cu::DType t, const void* src);
// Converts the Lua value at idx into type t at `dst`; raises naming `what`, the value
// and the type's range when it does not fit or is not a number.
void to_element(lua_State* L, int idx, cu::DType t, void* dst, const char* what);
// Copies the sequence table at `tidx` into `a` starting at element `at` (0-based).
void upload_table(lua_State* L, int tidx, Array& a, std::size_t at);
// Adds get, set, fill, iota, random to the methods table on top of the stack.
void add_array_host_methods(lua_State* L);

}  // namespace warplab::bind
