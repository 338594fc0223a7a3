// fork_park_test.cpp: serve::ForkPark. A thread registered with it is never caught in the
// middle of its work by a fork: each child sees the thread's "busy" flag clear (the memory
// a child gets is the parent's at the instant of the fork), for a thread that is busy
// almost all the time. Without the park most children would see it set.
#include "app/serve/fork_park.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(ForkPark, AForkNeverCatchesTheThreadInItsWork) {
  std::atomic<bool> busy{false}, done{false};
  warplab::app::serve::ForkPark park([] {});  // the thread comes to hold() by itself
  std::thread worker([&] {
    std::vector<std::string> held;
    while (!done) {
      busy = true;
      for (int i = 0; i < 200; ++i) held.emplace_back(64, 'x');  // the allocator's locks, taken
      held.clear();
      busy = false;
      park.hold();
    }
  });
  park.start(worker.get_id());
  int caught = 0, failed = 0;
  for (int i = 0; i < 100; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(busy.load() ? 1 : 0);
    int st = 0;
    ASSERT_EQ(::waitpid(pid, &st, 0), pid);
    if (!WIFEXITED(st))
      ++failed;
    else
      caught += WEXITSTATUS(st);
  }
  park.stop();
  done = true;
  worker.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(caught, 0) << "forks that caught the thread in the middle of its work";
}

}  // namespace
