// guard.hpp: the one place C++ exceptions become Lua errors (as LÖVE does): caught, their
// text copied, and the Lua error raised only after the catch block has ended, so no C++
// exception object is alive while Lua unwinds; raise(), a binding's own error inside it.
//   static int kernel_launch(lua_State* L) { return guard(L, [L] { ...; return 0; }); }
#pragma once
#include <lua.hpp>

#include <exception>
#include <string>
#include <utility>

#include "cu/error.hpp"
#include "lab/error.hpp"

namespace warplab::bind {

// state.cpp: e's sentence, naming the launches in flight when e is an asynchronous fault
// (lab::Run::describe); and the watchdog's hook, which raises the timeout's sentence again
// on every instruction count tick so an enclosing pcall cannot swallow it for long (as
// redis re-arms its script-kill hook): the context is stuck, the script must end.
std::string describe_error(lua_State* L, const cu::Error& e);
void arm_timeout_hook(lua_State* L);

// How a binding raises its own error inside guard() (state.cpp): throws the sentence, formatted as
// luaL_error formats it (lua_pushvfstring: %s %d %I %f %p %c %U %%), for guard() to raise with
// the caller's script line. One way: no luaL_error inside a guarded body.
[[noreturn]] [[gnu::cold]] void raise(lua_State* L, const char* fmt, ...);

// Runs body; what it throws is raised as a Lua error prefixed with the caller's script
// line. Lua is linked as C++ (see CMakeLists.txt): Lua's own errors are exceptions of a
// type that is not std::exception, so they pass through guard() untouched.
template <class F>
int guard(lua_State* L, F&& body) {
  std::string msg;
  bool timed_out = false;
  try {
    return std::forward<F>(body)();
  } catch (const lab::Timeout& e) {
    msg = e.what();
    timed_out = true;
  } catch (const cu::Error& e) {
    msg = describe_error(L, e);  // names the launch behind an asynchronous fault
  } catch (const std::exception& e) {
    msg = e.what();
  }
  if (timed_out) arm_timeout_hook(L);
  return luaL_error(L, "%s", msg.c_str());  // prefixes script:line of the caller
}

}  // namespace warplab::bind
