// repl_eval.hpp: what the REPL worker does with a chunk of input: compile it as
// `return <chunk>` first (so expressions print, as lua.c), else as statements; say
// when it is incomplete; run it under pcall; pretty-print the results. Ctrl-C arrives
// as SIGINT and only sets a count hook that raises "interrupted" (as lua.c's laction),
// re-armed on every instruction so a pcall in the user's code cannot swallow it.
// Runs inside the worker process; depends on Lua and the REPL's printer/completer.
#pragma once
#include <lua.hpp>

#include <string>
#include <vector>

namespace warplab::app::repl {

struct EvalResult {
  // kLost: an error after which the GPU context is unusable (sticky fault, timeout).
  // kSyntax: the chunk does not parse (the prompt keeps it for editing).
  enum Status { kOk, kError, kIncomplete, kLost, kSyntax } status = kOk;
  std::string text;  // the values, tab separated (kOk), or the message (kError)
};

class Evaluator {
 public:
  // Binds the global `dev` to cuda.device() (a warning on stderr if that fails).
  explicit Evaluator(lua_State* L);
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // `final`: no more input follows, so an incomplete chunk is a syntax error.
  EvalResult eval(const std::string& chunk, bool final);
  std::vector<std::string> complete(const std::string& line);
  EvalResult attrs(const std::string& pattern);

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
