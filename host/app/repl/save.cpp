// repl/save.cpp: see save.hpp. The parse uses a bare Lua state of its own (no libraries,
// nothing run): the prompt holds no Lua state, and CUDA is never touched here.
#include "app/repl/save.hpp"

#include <lua.hpp>

#include <memory>

namespace warplab::app::repl {
namespace {

struct Closer {
  void operator()(lua_State* L) const { lua_close(L); }
};

bool parses(lua_State* L, const std::string& text) {
  const bool ok = luaL_loadbufferx(L, text.data(), text.size(), "=save", "t") == LUA_OK;
  lua_settop(L, 0);
  return ok;
}

// Every line of `text` as a Lua comment.
std::string commented(const std::string& text) {
  std::string out = "-- ";
  for (const char c : text) out += c == '\n' ? std::string("\n-- ") : std::string(1, c);
  return out;
}

}  // namespace

bool is_bare_expression(const std::string& chunk) {
  const std::unique_ptr<lua_State, Closer> L(luaL_newstate());
  if (!L) return false;
  return parses(L.get(), "return " + chunk + ";") && !parses(L.get(), chunk);
}

std::string session_script(const std::vector<SavedInput>& inputs) {
  std::string out = "-- saved from warplab repl: the session's successful inputs, in order\n";
  for (const SavedInput& in : inputs) {
    if (in.faulted)
      out += "-- left out: this input launched a kernel that faulted\n" + commented(in.text) + "\n";
    else if (is_bare_expression(in.text))
      out += "print(" + in.text + "\n)\n";  // the line break: a trailing comment cannot swallow the ')'
    else
      out += in.text + "\n";
  }
  return out;
}

}  // namespace warplab::app::repl
