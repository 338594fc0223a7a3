// repl/save.cpp: see save.hpp. The parse uses a bare Lua state of its own (no libraries,
// nothing run): the prompt holds no Lua state, and CUDA is never touched here.
#include "app/repl/save.hpp"

#include <pwd.h>
#include <unistd.h>

#include <lua.hpp>

#include <cstdlib>
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

std::string save_path(const std::string& file) {
  if (file.empty() || file[0] != '~') return file;
  const std::size_t slash = file.find('/');
  const std::string user = file.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
  std::string home;
  if (user.empty()) {
    const char* h = std::getenv("HOME");
    if (h && *h) home = h;
  }
  if (home.empty()) {  // ~NAME, or no $HOME: the password database
    const passwd* pw = user.empty() ? ::getpwuid(::getuid()) : ::getpwnam(user.c_str());
    if (pw && pw->pw_dir && *pw->pw_dir) home = pw->pw_dir;
  }
  if (home.empty()) return file;  // no such user: a file named "~x", as the shell leaves it
  return slash == std::string::npos ? home : home + file.substr(slash);
}

}  // namespace warplab::app::repl
