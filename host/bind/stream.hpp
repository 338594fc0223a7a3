// stream.hpp: the `cuda.stream` userdata, shared with the kernel binding (a launch may
// name a stream), and the helpers the stream and event userdata share (bind_stream.cpp,
// stream_methods.cpp). Depends on cu/stream.hpp.
#pragma once
#include <lua.hpp>

#include "bind/sandbox.hpp"

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

// Helpers of the stream and event userdata: the live object at idx (raises once it
// was freed), :free(), __gc.
template <class T>
inline T& check_live(lua_State* L, int idx, const char* meta, const char* what) {
  auto* p = static_cast<T*>(luaL_checkudata(L, idx, meta));
  if (!p->valid()) luaL_error(L, "attempt to use a destroyed %s", what);
  return *p;
}

template <class T>
inline int release(lua_State* L, const char* meta) {
  static_cast<T*>(luaL_checkudata(L, 1, meta))->destroy();
  return 0;
}
template <class T>
inline int collect(lua_State* L, const char* meta) {
  static_cast<T*>(luaL_checkudata(L, 1, meta))->~T();
  lua_pushnil(L);  // destroyed: any later use (or a second __gc) is a type error, not a crash
  lua_setmetatable(L, 1);
  return 0;
}
// Registers the locked metatable `name`: methods as __index, gc as __gc, release as __close.
inline void add_meta(lua_State* L, const char* name, const luaL_Reg* methods, lua_CFunction gc,
                     lua_CFunction release) {
  luaL_newmetatable(L, name);  // +1
  lock_metatable(L, name);     // getmetatable() gives the name, never the table
  int n = 0;
  while (methods[n].name) ++n;
  lua_createtable(L, 0, n);        // +1, as luaL_newlib makes it
  luaL_setfuncs(L, methods, 0);    // into the methods table
  lua_setfield(L, -2, "__index");  // -1
  lua_pushcfunction(L, gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, release);
  lua_setfield(L, -2, "__close");
  lua_pop(L, 1);  // -1
}

}  // namespace warplab::bind
