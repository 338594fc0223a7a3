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
  // context unusable (a sticky fault, a timeout), naming the evaluation that made the
  // launch the fault's sentence names, when it was unfinished then (Reply::faulted). `final`: no more input
  // follows, so an incomplete chunk is a syntax error (kSyntax), not kIncomplete. Every call counts as one
  // evaluation (Reply::eval).
  Reply eval(const std::string& chunk, bool final);
  std::vector<std::string> complete(const std::string& line);
  Reply attrs(const std::string& pattern);  // kOk or kError

  // The SIGINT handler (installed by install_sigint()); async-signal-safe.
  static void on_sigint(int);
  // Installs on_sigint for SIGINT (no SA_RESTART needed: Lua never blocks in a syscall
  // that the hook must interrupt; a C call finishes first, then the hook fires).
  static void install_sigint();

 private:
  // The evaluation that made the most recent launch: the one a fault's sentence names
  // (lab/fault.hpp), for the reply of a lost context (Reply::faulted).
  void note_launches(unsigned long long before, Reply& r);
  Reply run_chunk(const std::string& chunk, bool final);

  lua_State* L_;
  unsigned long long evals_ = 0;
  unsigned long long last_launcher_ = 0;  // 0: no evaluation launched anything yet
};

// The chunk name errors show: "repl:1: attempt to call a nil value".
inline constexpr const char* kChunkName = "=repl";

}  // namespace warplab::app::repl
