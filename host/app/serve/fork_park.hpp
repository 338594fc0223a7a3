// serve/fork_park.hpp: a thread that must be at a quiet point whenever this process forks.
// The page's event loop runs on a thread while watch and `run --serve` fork their runs; a
// fork taken while that thread held a lock (inside malloc, in a library) leaves the child
// that lock held for ever. glibc's malloc guards itself; a sanitizer's allocator may not.
// A ForkPark registers its thread: every fork() (through pthread_atfork) wakes it, waits
// until it is parked in hold() (a second at most), forks, and lets it go on. The child has
// no such thread, and nothing there waits for one.
#pragma once
#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace warplab::app::serve {

class ForkPark {
 public:
  // `wake` makes the thread call hold() soon (the loop writes its own eventfd); it must not
  // allocate. Nothing is parked until start().
  explicit ForkPark(std::function<void()> wake);
  ~ForkPark();
  ForkPark(const ForkPark&) = delete;
  ForkPark& operator=(const ForkPark&) = delete;

  // The thread runs: forks from now on wait for it (a fork on that thread itself does not).
  void start(std::thread::id thread);
  // Before the thread ends: forks no longer wait for it (the destructor does it too).
  void stop();
  // On the thread, each time it is woken: parked here while a fork is under way.
  void hold();

  // pthread_atfork's three steps, for every ForkPark of this process (fork_park.cpp).
  static void before_fork();
  static void after_fork_in_parent();
  static void after_fork_in_child();

 private:
  std::function<void()> wake_;
  std::thread::id thread_;
  pid_t owner_;  // the process whose thread it is: a forked child's copy parks nothing
  std::mutex mutex_;
  std::condition_variable cv_;
  bool asked_ = false, parked_ = false;
};

}  // namespace warplab::app::serve
