// repl/eval.hpp: what the REPL worker does with a chunk: compile it as `return <chunk>`
// first (so expressions print, as lua.c), else as statements; say when it is incomplete;
// run it under pcall; pretty-print the results. Ctrl-C sets a count hook that raises
// "interrupted", re-armed on every instruction so a pcall cannot swallow it. Runs in the
// worker; depends on Lua and protocol.hpp (the Reply it returns).
#pragma once
#include <lua.hpp>

#include <string>
#include <vector>

#include "app/repl/protocol.hpp"

namespace warplab::app::repl {

class Evaluator {
 public:
  // Binds the global `dev` to cuda.device() (a warning on stderr if that fails).
  explicit Evaluator(lua_State* L);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // The values, tab separated (kOk), or the message; kLost when the error left the GPU
  // context unusable (a sticky fault, a timeout). `final`: no more input follows, so an
  // incomplete chunk is a syntax error (kSyntax), not kIncomplete.
  Reply eval(const std::string& chunk, bool final);
  std::vector<std::string> complete(const std::string& line);
  Reply attrs(const std::string& pattern);  // kOk or kError

  // The SIGINT handler (installed by install_sigint()); async-signal-safe.
  static void on_sigint(int);
  // Installs on_sigint for SIGINT (no SA_RESTART needed: Lua never blocks in a syscall
  // that the hook must interrupt; a C call finishes first, then the hook fires).
  static void install_sigint();

 private:
  lua_State* L_;
};

// The chunk name errors show: "repl:1: attempt to call a nil value".
inline constexpr const char* kChunkName = "=repl";

}  // namespace warplab::app::repl
