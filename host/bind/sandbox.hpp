// sandbox.hpp: what a script may reach, decided once per Lua state. Scripts and modules
// load as text only (a corrupt precompiled chunk crashes the interpreter); the debug
// library keeps what error reports use (traceback, getinfo, getlocal, sethook, gethook);
// every warplab metatable is locked (__metatable; register_type, metatable.hpp, does it).
#pragma once
#include <string>

struct lua_State;

namespace warplab::bind {

// After luaL_openlibs: text-only load/loadfile/dofile/require, the reduced debug table.
void harden_libs(lua_State* L);
// Locks the metatable on top of the stack: getmetatable() on its objects returns `name`
// (register_type calls it for every type).
void lock_metatable(lua_State* L, const char* name);
// Reads and loads a script file as text (pushes the chunk, or the message and returns
// false): a regular file of at most lab::kMaxScriptBytes, or one sentence why not
// (lab/script.hpp).
bool load_script(lua_State* L, const std::string& path);

}  // namespace warplab::bind
