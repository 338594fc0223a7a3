// guard.hpp: the one place C++ exceptions become Lua errors (as LÖVE does). The
// exception is caught, its text copied, and the Lua error raised only after the catch
// block has ended, so no C++ exception object is alive while Lua unwinds.
// Lua is linked as C++ (see CMakeLists.txt): Lua's own errors are exceptions of a type
// that is not std::exception, so they pass through guard() untouched.
// A binding that may throw is a plain function (ctags and indexers see its name):
//   static int kernel_launch(lua_State* L) { return guard(L, [L] { ...; return 0; }); }
#pragma once
#include <lua.hpp>

#include <exception>
#include <string>
#include <utility>

#include "cu/error.hpp"

namespace warplab::bind {

std::string describe_error(lua_State* L, const cu::Error& e);  // fault.hpp

template <class F>
int guard(lua_State* L, F&& body) {
  std::string msg;
  try {
    return std::forward<F>(body)();
  } catch (const cu::Error& e) {
    msg = describe_error(L, e);  // names the launch behind an asynchronous fault
  } catch (const std::exception& e) {
    msg = e.what();
  }
  return luaL_error(L, "%s", msg.c_str());  // prefixes script:line of the caller
}

}  // namespace warplab::bind
