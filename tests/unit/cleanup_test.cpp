// cleanup_test.cpp: what `warplab watch` leaves must go however it ends (cli/cleanup.hpp):
// the private folder is removed and the children's process groups killed when the owner
// returns, and when it is killed with SIGKILL, which no handler sees; a group the owner
// said it reaped is left alone.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "app/cli/cleanup.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using warplab::app::Cleanup;

namespace {

// A `sleep 30` in a process group of its own; its pid (= its group).
pid_t sleeper() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::execl("/bin/sleep", "sleep", "30", nullptr);
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  return pid;
}

bool alive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  return !stat.empty() && stat.find(") Z ") == std::string::npos;
}

template <class F>
bool within(std::chrono::milliseconds limit, F done) {
  for (auto t = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t < limit;) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return done();
}

// In a child: a Cleanup with a file in its folder and two sleepers adopted (the second
// then forgotten); writes "<dir> <pid1> <pid2>\n" to `out`, then waits to be killed.
[[noreturn]] void owner(int out) {
  Cleanup keep("test");
  std::ofstream(keep.dir() + "/big.pch") << "a warm header";
  const pid_t a = sleeper(), b = sleeper();
  keep.adopt_group(a);
  keep.adopt_group(b);
  keep.forget_group(b);
  char line[4200];
  const int n = std::snprintf(line, sizeof line, "%s %d %d\n", keep.dir().c_str(), a, b);
  [[maybe_unused]] const ssize_t w = ::write(out, line, static_cast<size_t>(n));
  for (;;) ::pause();
}

}  // namespace

TEST(Cleanup, RemovesItsFolderWhenItEnds) {
  std::string dir;
  {
    Cleanup keep("test");
    dir = keep.dir();
    ASSERT_TRUE(fs::is_directory(dir));
    fs::create_directories(dir + "/pch");
    std::ofstream(dir + "/pch/x.pch") << "x";
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST(Cleanup, OutlivesASigkilledOwner) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    owner(p[1]);
  }
  ::close(p[1]);
  char buf[4200] = {};
  ssize_t got = 0;
  for (ssize_t n; got < static_cast<ssize_t>(sizeof buf) - 1 &&
                  (n = ::read(p[0], buf + got, sizeof buf - 1 - got)) > 0;) {
    got += n;
    if (buf[got - 1] == '\n') break;
  }
  ::close(p[0]);
  char dir[4096] = {};
  int a = 0, b = 0;
  ASSERT_EQ(std::sscanf(buf, "%4095s %d %d", dir, &a, &b), 3) << buf;
  ASSERT_TRUE(fs::exists(std::string(dir) + "/big.pch"));
  ASSERT_TRUE(alive(a) && alive(b));

  ::kill(pid, SIGKILL);  // no handler, no destructor: only the keeper is left to clean up
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_TRUE(within(5s, [&] { return !fs::exists(dir); })) << dir << " is still there";
  EXPECT_TRUE(within(5s, [&] { return !alive(a); })) << "the adopted group outlived its owner";
  EXPECT_TRUE(alive(b)) << "a group the owner forgot was killed";
  ::kill(b, SIGKILL);
}
