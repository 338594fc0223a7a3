// array.hpp: the `cuda.array` userdata shared with the kernel binding (which passes
// arrays as pointer arguments and checks their element type). The record itself is
// lab::DeviceArray (lab/array.hpp); here are the Lua-side readers.
#pragma once
#include <lua.hpp>

#include <cstddef>

#include "cu/dtype.hpp"
#include "lab/array.hpp"

namespace warplab::bind {

inline constexpr const char* kArrayMeta = "warplab.array";

using Array = lab::DeviceArray;

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

// Within the cuda.array binding: a new empty array userdata on the stack (bind_array.cpp),
// and from bind_array_methods.cpp :free (also __close), __gc, and the methods table's
// entries (into the table on top of the stack).
Array& push_array(lua_State* L);
int array_release(lua_State* L);
int array_gc(lua_State* L);
void add_array_methods(lua_State* L);

}  // namespace warplab::bind
