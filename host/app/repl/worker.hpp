// repl/worker.hpp: the REPL's worker process. The prompt forks a worker that opens the Lua
// state and answers requests over a socketpair (protocol.hpp), so a crash or a hang costs
// the state, never the prompt, which says so and switches to a spare worker forked ahead
// (its state and the device's context ready). The worker has its own process group (Ctrl-C
// reaches the prompt, which forwards it) and dies with the prompt, whatever kills the
// prompt, taking with it what it started (cli/child_group.hpp).
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "app/repl/protocol.hpp"
#include "bind/state.hpp"

namespace warplab::app::repl {

// Opens the worker's Lua state; called in the worker process after fork. An Error it throws
// reaches the prompt with its kind and sentence (Worker::start throws it again there).
using StateFactory = std::function<bind::StatePtr()>;
// What a spare worker does with its state before it is needed (the device's context).
using Warm = std::function<void(lua_State*)>;

class Worker {
 public:
  explicit Worker(StateFactory make, Warm warm = {});
  ~Worker();  // kills the worker (and the spare) and reaps it
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Starts the worker (the spare, when one is ready) and waits until its state is open;
  // throws Error: the worker's, or internal when it cannot be started.
  void start();
  // Kills the current worker (if any) and starts a new one.
  void restart();
  // From now on a spare worker is kept ready for the next restart (forked after the first
  // start, so that what the first start says, such as the offline note, is not repeated).
  void keep_spare();

  // A chunk evaluated; the reply's `eval` is its number in this worker (1, 2, ...).
  Reply eval(const std::string& chunk, bool final);
  Reply attrs(const std::string& pattern);
  // Whether `path` may be written, as the worker sees it: kError with the sentence when it is
  // a file the worker read (a kernel or header the session compiled); kDied when it is gone.
  Reply check_output(const std::string& path);
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
  // Forks a worker into pid/fd; `spare`: it warms its state before saying it is ready.
  void fork_worker(pid_t& pid, int& fd, bool spare);
  void fork_spare();

  StateFactory make_;
  Warm warm_;
  pid_t pid_ = -1;
  int fd_ = -1;
  pid_t spare_pid_ = -1;  // the next worker, ready (or getting ready); -1: none
  int spare_fd_ = -1;
  bool keep_spare_ = false;
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

// The worker's side: serves requests on `fd` until end of file; `warm`, when set, runs on
// the state before the worker says it is ready. Never returns.
[[noreturn]] void serve(int fd, const StateFactory& make, const Warm& warm = {});

}  // namespace warplab::app::repl
