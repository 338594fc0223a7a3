// repl/save.cpp: see save.hpp. The parse uses a bare Lua state of its own (no libraries,
// nothing run): the prompt holds no Lua state, and CUDA is never touched here.
#include "app/repl/save.hpp"

#include <pwd.h>
#include <unistd.h>

#include <lua.hpp>

#include <cctype>
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

// Whether `word` stands in `text` as a whole name. One in a string or a comment counts too:
// at worst a do ... end that was not needed.
bool mentions(const std::string& text, const std::string& word) {
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at == 0 || !name_char(text[at - 1])) && (end == text.size() || !name_char(text[end]))) return true;
  }
  return false;
}

// `expr` (one or more expressions, as typed) shown with warplab.show: on one line when that
// parses, else with the ')' on a line of its own (a trailing comment would swallow it).
std::string shown(lua_State* L, const std::string& expr) {
  const std::string one = "warplab.show(" + expr + ")";
  return parses(L, one) ? one : "warplab.show(" + expr + "\n)";
}

// An input as script text. The REPL ran each input as a chunk of its own, so a local it
// declared (a goto label too) lasted for that input only: such an input goes in a
// do ... end block, which also keeps a long session under Lua's 200 locals per function.
// Statements that end in `return` printed what they returned: a function, its results shown.
std::string script_text(lua_State* L, const SavedInput& in) {
  const std::string& t = in.text;
  if (in.via == Via::kCounters)
    return "warplab.show(cuda.counters(function()\n" + t + "\nend, \"" + in.sets + "\"))";
  if (in.via == Via::kLines)
    return "warplab.show(cuda.lines(function()\n" + t + "\nend" +
           (in.sets.empty() ? "" : ", \"" + in.sets + "\"") + "))";
  // The REPL tried `return <input>` first: what it printed is shown, a call's values too.
  if (is_bare_expression(t) || (in.printed && parses(L, "return " + t + ";"))) return shown(L, t);
  if (parses(L, t) && !parses(L, t + "\ndo end")) return "warplab.show((function()\n" + t + "\nend)())";
  if (mentions(t, "local") || t.find("::") != std::string::npos) return "do\n" + t + "\nend";
  // A statement that starts with '(' would be read as a call of the line before it.
  const std::size_t first = t.find_first_not_of(" \t\r\n");
  return (first != std::string::npos && t[first] == '(' ? ";" : "") + t;
}

}  // namespace

bool is_bare_expression(const std::string& chunk) {
  const std::unique_ptr<lua_State, Closer> L(luaL_newstate());
  if (!L) return false;
  return parses(L.get(), "return " + chunk + ";") && !parses(L.get(), chunk);
}

std::string session_script(const std::vector<SavedInput>& inputs) {
  std::string out =
      "-- saved from warplab repl: the session's successful inputs, in order (warplab run FILE\n"
      "-- runs it). warplab.show prints a value as the REPL printed it.\n"
      "dev = cuda.device()  -- as the REPL binds it\n";
  const std::unique_ptr<lua_State, Closer> L(luaL_newstate());
  for (const SavedInput& in : inputs) {
    if (in.faulted)
      out += "-- left out: this input launched a kernel that faulted\n" + commented(in.text) + "\n";
    else
      out += (L ? script_text(L.get(), in) : in.text) + "\n";
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
