// array_host.hpp: moving array elements between Lua values and memory (the conversion
// and its range checks live in lab/array.hpp), and the :get/:set/:fill/:iota/:random
// methods shared by device arrays (cuda.array) and host arrays (cuda.host_array).
#pragma once
#include <lua.hpp>

#include <vector>

#include "bind/array.hpp"

namespace warplab::bind {

// Pushes one element read from host bytes `src` (integer or float per type).
inline void push_element(lua_State* L, cu::DType t, const void* src) {
  const lab::Number v = lab::load_element(t, src);
  v.integer ? lua_pushinteger(L, static_cast<lua_Integer>(v.i)) : lua_pushnumber(L, v.x);
}
// Converts the Lua value at idx into type t at `dst`; throws lab::Error naming `what`, the
// value and the type's range when it does not fit or is not a number (call under guard()).
void to_element(lua_State* L, int idx, cu::DType t, void* dst, const char* what);
// The sequence table at `tidx` converted to type t, element by element (throws on the
// first value that does not fit, before anything is written anywhere).
std::vector<unsigned char> table_image(lua_State* L, int tidx, cu::DType t);
// Adds get, set, fill, iota, random to the methods table on top of the stack; they take
// a cuda.array or a cuda.host_array as self.
void add_array_host_methods(lua_State* L);

}  // namespace warplab::bind
