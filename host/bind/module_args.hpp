// module_args.hpp: reading cuda.compile's table fields off the Lua stack (strings, string
// lists, defines) and finding the calling script's file and line. Each misuse raises
// its "cuda.compile: ..." sentence. Used by module_spec.cpp.
#pragma once
#include <lua.hpp>

#include <string>
#include <vector>

#include "rtc/compile.hpp"

namespace warplab::bind {

struct Caller {
  std::string file;  // the Lua file ("" when not a file)
  int line = 0;
};
// The Lua function that called the running C function (cuda.compile).
Caller caller(lua_State* L);

// t.field as a string: "" when absent, raises for another type (every byte kept, NULs too).
std::string opt_string(lua_State* L, int t, const char* field);
// t.field as a string or a list of strings (absent: empty).
std::vector<std::string> string_list(lua_State* L, int t, const char* field);
// t.defines = {BLOCK = 256, DEBUG = true, "A=1", "B"} into o.defines (lab::add_defines).
void read_defines(lua_State* L, int t, rtc::Options& o);

}  // namespace warplab::bind
