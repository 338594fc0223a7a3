// elements.hpp: what cuda.array and cuda.host_array share, used by array.cpp and
// host_array.cpp: the constructors' element type and count, moving elements between Lua
// values and memory (the conversion and its range checks are lab/array.hpp's), and the
// methods both kinds have (elements.cpp).
#pragma once
#include <lua.hpp>

#include <cstddef>
#include <vector>

#include "cu/dtype.hpp"
#include "lab/array.hpp"

namespace warplab::bind {

// The element type named by the string at idx ("f32", "float", ...); raises an argument
// error listing the types otherwise.
cu::DType check_dtype(lua_State* L, int idx);
// The element count of cuda.array / cuda.host_array: the integer at idx, or the length of
// the list there; raises unless it is positive and its bytes fit 2^56. `who` names the call.
std::size_t check_count(lua_State* L, int idx, cu::DType t, const char* who);

// Pushes one element read from host bytes `src` (integer or float per type).
inline void push_element(lua_State* L, cu::DType t, const void* src) {
  const lab::Number v = lab::load_element(t, src);
  v.integer ? lua_pushinteger(L, static_cast<lua_Integer>(v.i)) : lua_pushnumber(L, v.x);
}
// Converts the Lua value at idx into type t at `dst`; throws Error (bad_input) naming `what`, the
// value and the type's range when it does not fit or is not a number (call under guard()).
void to_element(lua_State* L, int idx, cu::DType t, void* dst, const char* what);
// The sequence table at `tidx` converted to type t, element by element (throws on the
// first value that does not fit, before anything is written anywhere).
std::vector<unsigned char> table_image(lua_State* L, int tidx, cu::DType t);

// The methods both kinds have, for their LuaType's `shared` (metatable.hpp): view, copy
// and zero as A's own instances (so a wrong self gets its kind's sentence), and get, set,
// fill, iota and random, which take either kind as self. A: lab::DeviceArray or
// lab::HostArray.
template <class A>
const luaL_Reg* shared_methods();

}  // namespace warplab::bind
