// guard.hpp: the one place C++ exceptions become Lua errors (as LÖVE does): caught, their
// text copied, and the Lua error raised only after the catch block has ended, so no C++
// exception object is alive while Lua unwinds; raise(), a binding's own error inside it.
// The kind travels with the error: guard() notes the exact message it raises and the
// kind in the state's record (record.hpp), where run_file's message handler finds it.
//   static int kernel_launch(lua_State* L) { return guard(L, [L] { ...; return 0; }); }
#pragma once
#include <lua.hpp>

#include <exception>
#include <string>
#include <utility>

#include "cu/error.hpp"
#include "sys/error.hpp"

namespace warplab::bind {

// state.cpp: e's sentence, naming the launches in flight when e is an asynchronous fault
// (lab::Run::describe); and the watchdog's hook, which raises the timeout's sentence again
// on every instruction count tick so an enclosing pcall cannot swallow it for long (as
// redis re-arms its script-kill hook): the context is stuck, the script must end.
std::string describe_error(lua_State* L, const cu::Error& e);
void arm_timeout_hook(lua_State* L);

// Raises `msg` as a Lua error with the position of the function at `level` in front (as
// error(msg, level) does: 1, the caller of the running C function; 0, none), after noting
// the exact message and `kind` in the state's record (record.hpp: a ring of the last few).
[[noreturn]] void raise_noted(lua_State* L, ErrorKind kind, const std::string& msg, int level = 1);

// How a binding raises its own error inside guard() (state.cpp): throws the sentence, formatted as
// luaL_error formats it (lua_pushvfstring: %s %d %I %f %p %c %U %%), for guard() to raise with
// the caller's script line; of kind bad_input (misuse), or the kind given. The one way: no
// luaL_error inside a guarded body (luaL_argerror and luaL_check*, Lua's own argument
// checks, stay Lua's).
[[noreturn]] [[gnu::cold]] void raise(lua_State* L, const char* fmt, ...);
[[noreturn]] [[gnu::cold]] void raise(lua_State* L, ErrorKind kind, const char* fmt, ...);

// Runs body; what it throws is raised as a Lua error prefixed with the caller's script
// line, its kind noted (an exception not of warplab's is the script's error: none). Lua is
// linked as C++ (see CMakeLists.txt): Lua's own errors are exceptions of a type that is not
// std::exception, so they pass through guard() untouched.
template <class F>
int guard(lua_State* L, F&& body) {
  std::string msg;
  ErrorKind kind = ErrorKind::failed;
  bool noted = true;
  try {
    return std::forward<F>(body)();
  } catch (const cu::Error& e) {
    msg = describe_error(L, e);  // names the launch behind an asynchronous fault
    kind = e.kind();
  } catch (const Error& e) {
    msg = e.what();
    kind = e.kind();
  } catch (const std::exception& e) {
    msg = e.what();
    noted = false;
  }
  if (kind == ErrorKind::timeout) arm_timeout_hook(L);
  if (noted) raise_noted(L, kind, msg);
  return luaL_error(L, "%s", msg.c_str());  // prefixes script:line of the caller
}

}  // namespace warplab::bind
