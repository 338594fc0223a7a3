// repl/worker.hpp: the REPL's worker process. The prompt forks a worker that opens the Lua
// state and answers requests over a socketpair (protocol.hpp), so a crash or a hang costs
// the state, never the prompt, which says so and starts a fresh worker. The worker has its
// own process group (Ctrl-C reaches the prompt, which forwards it) and dies with the prompt,
// whatever kills the prompt, taking with it what it started (cli/child_group.hpp).
// Depends on protocol.hpp (Reply, Status) and bind/state.hpp (the state it holds).
#pragma once
#include <sys/types.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/repl/protocol.hpp"
#include "bind/state.hpp"

namespace warplab::app::repl {

// Opens the worker's Lua state; called in the worker process after fork. Throw
// StartError to give the prompt an exit code and one sentence.
using StateFactory = std::function<bind::StatePtr()>;

struct StartError : std::runtime_error {
  StartError(int code, const std::string& msg) : std::runtime_error(msg), code(code) {}
  int code;
};

class Worker {
 public:
  explicit Worker(StateFactory make);
  ~Worker();  // kills the worker and reaps it
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Forks the worker and waits until its state is open; throws StartError.
  void start();
  // Kills the current worker (if any) and starts a new one.
  void restart();

  // A chunk evaluated; the reply's `eval` is its number in this worker (1, 2, ...).
  Reply eval(const std::string& chunk, bool final);
  Reply attrs(const std::string& pattern);
  // Candidates for the word at the end of `line`; empty when the worker died (then
  // died() tells, and the caller restarts it).
  std::vector<std::string> complete(const std::string& line);

  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // After a Status::kDied reply: "worker died (signal 11)" or "worker died (exit 3)".
  const std::string& death() const { return death_; }

 private:
  Reply request(char type, const std::string& payload);
  void reap(bool kill_first);

  StateFactory make_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string death_;
  unsigned long long evals_ = 0;  // evaluations sent to this worker (Reply::eval)
};

// Ctrl-C for the prompt: install_interrupt_handler() makes SIGINT (without SA_RESTART)
// count and wake interrupt_fd(). While a request waits for its reply, the first Ctrl-C
// sends SIGINT to the worker (its hook raises "interrupted"), the second kills it.
void install_interrupt_handler();
int interrupt_fd();
// The number of Ctrl-C since the last call (and drains interrupt_fd()).
int take_interrupts();

// The worker's side: serves requests on `fd` until end of file. Never returns.
[[noreturn]] void serve(int fd, const StateFactory& make);

}  // namespace warplab::app::repl
