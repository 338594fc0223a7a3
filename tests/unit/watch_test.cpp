// watch_test.cpp: the core of `warplab watch` on real files in a temp dir: saves seen
// through directory watches (plain, atomic rename, delete + recreate, a header in
// another folder), bursts coalesced, editor droppings ignored; the child runner (exit
// status, ready before go and nothing run without it, process-group kill, unblocked
// signals, the watcher's descriptors closed); the dependency feed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "app/watch/child.hpp"
#include "app/watch/files.hpp"
#include "lab/watch_feed.hpp"

namespace fs = std::filesystem;
using namespace warplab::app::watch;
using namespace std::chrono_literals;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "warplab-watch-XXXXXX").string();
    path_ = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What vim (backupcopy=no), VS Code's atomic save and JetBrains' safe write do.
void atomic_save(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp-save";
  write_file(tmp, text);
  fs::rename(tmp, path);
}

std::vector<std::string> one(const std::string& p) { return {p}; }

}  // namespace

TEST(FileWatcher, PlainSaveGivesOneBatchWithThePath) {
  TempDir d;
  write_file(d / "s.lua", "v1");
  FileWatcher w;
  w.set_files({d / "s.lua"});
  EXPECT_FALSE(w.wait(100ms)) << "no change yet";
  write_file(d / "s.lua", "v2");
  const auto b = w.wait(2s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->paths, one(d / "s.lua"));
  EXPECT_FALSE(w.wait(100ms)) << "one save, one batch";
}

TEST(FileWatcher, AtomicRenameOverTheFileIsSeen) {
  TempDir d;
  write_file(d / "k.cu", "old");
  FileWatcher w;
  w.set_files({d / "k.cu"});
  atomic_save(d / "k.cu", "new");
  const auto b = w.wait(2s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->paths, one(d / "k.cu"));
  EXPECT_EQ(read_file(d / "k.cu"), "new");
  // The new inode is watched as well as the old one was: a second save is seen too.
  atomic_save(d / "k.cu", "newer");
  ASSERT_TRUE(w.wait(2s));
}

TEST(FileWatcher, DeleteThenRecreateIsSeenBothTimes) {
  TempDir d;
  write_file(d / "s.lua", "v1");
  FileWatcher w;
  w.set_files({d / "s.lua"});
  fs::remove(d / "s.lua");
  const auto gone = w.wait(2s);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->paths, one(d / "s.lua"));
  EXPECT_FALSE(fs::exists(d / "s.lua"));
  write_file(d / "s.lua", "v2");
  const auto back = w.wait(2s);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->paths, one(d / "s.lua"));
  EXPECT_EQ(read_file(d / "s.lua"), "v2");
}

// The script's whole folder deleted and made again (a `git checkout` of another branch,
// an rm -rf and a re-clone): the watcher finds the folder again and the file counts as
// saved (issue 12, defect 8: it used to wait forever).
TEST(FileWatcher, AFolderDeletedAndRecreatedIsWatchedAgain) {
  TempDir d;
  fs::create_directories(d / "proj");
  const std::string script = d / "proj/s.lua";
  write_file(script, "v1");
  FileWatcher w;
  w.set_files({script});
  fs::remove_all(d / "proj");
  (void)w.wait(1s);  // the delete (or nothing: the folder's watch simply ends)
  EXPECT_EQ(w.missing().size(), 1u);
  EXPECT_LE(w.timeout_ms(), FileWatcher::kRecheckMs);
  fs::create_directories(d / "proj");
  write_file(script, "v2");
  const auto back = w.wait(3s);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->paths, one(script));
  EXPECT_TRUE(w.missing().empty());
  atomic_save(script, "v3");  // and it is a normal watch again
  const auto again = w.wait(2s);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->paths, one(script));
}

TEST(FileWatcher, AFolderThatDoesNotExistYetIsPickedUpWhenMade) {
  TempDir d;
  const std::string script = d / "later/s.lua";
  FileWatcher w;
  EXPECT_TRUE(w.set_files({script}).empty());  // missing is not "cannot watch"
  EXPECT_EQ(w.missing().size(), 1u);
  fs::create_directories(d / "later");
  write_file(script, "v1");
  const auto b = w.wait(3s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->paths, one(script));
}

TEST(FileWatcher, HeaderInAnotherDirectory) {
  TempDir d;
  fs::create_directories(d / "include/warplab");
  write_file(d / "s.lua", "script");
  write_file(d / "k.cu", "#include <warplab/h.cuh>");
  write_file(d / "include/warplab/h.cuh", "v1");
  FileWatcher w;
  EXPECT_TRUE(w.set_files({d / "s.lua", d / "k.cu", d / "include/warplab/h.cuh"}).empty());
  EXPECT_EQ(w.directory_count(), 2u);
  write_file(d / "include/warplab/h.cuh", "v2");
  const auto b = w.wait(2s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->paths, one(d / "include/warplab/h.cuh"));
}

TEST(FileWatcher, RapidSavesCoalesceAndTheLastContentWins) {
  TempDir d;
  write_file(d / "k.cu", "start");
  FileWatcher w;
  w.set_files({d / "k.cu"});
  std::atomic<bool> done{false};
  // A batch may end wherever the writer itself paused longer than the settle time (10 ms):
  // a loaded machine stretches the 0.2 ms sleeps, and those pauses are counted, not guessed.
  std::atomic<int> pauses{0};
  std::thread writer([&] {
    auto last = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) {
      if (i % 2)
        atomic_save(d / "k.cu", "v" + std::to_string(i));
      else
        write_file(d / "k.cu", "v" + std::to_string(i));
      const auto now = std::chrono::steady_clock::now();
      if (i > 0 && now - last > 8ms) ++pauses;
      last = now;
      std::this_thread::sleep_for(200us);
    }
    done = true;
  });
  int batches = 0;
  std::string seen;
  // Collect batches until the writer is done and nothing more comes for 500 ms; each
  // batch "runs" by reading the file, as a re-run would.
  for (;;) {
    const auto b = w.wait(500ms);
    if (!b) {
      if (done) break;
      continue;
    }
    ++batches;
    seen = read_file(d / "k.cu");
  }
  writer.join();
  EXPECT_GE(batches, 1);
  EXPECT_LE(batches, 20 + pauses) << "200 saves 0.2 ms apart must coalesce (" << pauses
                                  << " pauses of the writer over 8 ms)";
  EXPECT_EQ(seen, "v199") << "the run after the burst sees the final content";
}

TEST(FileWatcher, EditorSwapAndBackupFilesAreIgnored) {
  TempDir d;
  write_file(d / "s.lua", "v1");
  FileWatcher w;
  w.set_files({d / "s.lua"});
  for (const char* n : {".s.lua.swp", "s.lua~", "4913", ".#s.lua", "s.lua___jb_tmp___"})
    write_file(d / n, "junk");
  write_file(d / "other.lua", "not watched");
  EXPECT_FALSE(w.wait(300ms));
  EXPECT_TRUE(FileWatcher::is_ignored("x.swp"));
  EXPECT_TRUE(FileWatcher::is_ignored("x.lua~"));
  EXPECT_TRUE(FileWatcher::is_ignored("4913"));
  EXPECT_TRUE(FileWatcher::is_ignored(".#x.lua"));
  EXPECT_FALSE(FileWatcher::is_ignored("x.lua"));
  EXPECT_FALSE(FileWatcher::is_ignored("x.cuh"));
}

TEST(FileWatcher, ASaveStillUnderWayWaitsForTheQuietWindow) {
  TempDir d;
  FileWatcher w(Debounce{50ms, 10ms, 1000ms});
  w.set_files({d / "new.cu"});
  const int fd = ::open((d / "new.cu").c_str(), O_CREAT | O_WRONLY, 0644);  // IN_CREATE only
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(w.wait(25ms)) << "a create alone must wait the 50 ms quiet window";
  ASSERT_EQ(::write(fd, "x", 1), 1);
  ::close(fd);  // IN_CLOSE_WRITE: the save is complete
  const auto b = w.wait(2s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->paths, one(d / "new.cu"));
}

TEST(FileWatcher, ReplacingTheSetStopsWatchingOldFiles) {
  TempDir d;
  fs::create_directories(d / "sub");
  write_file(d / "a.lua", "a");
  write_file(d / "sub/b.lua", "b");
  FileWatcher w;
  w.set_files({d / "a.lua"});
  w.set_files({d / "sub/b.lua"});
  EXPECT_EQ(w.directory_count(), 1u);
  write_file(d / "a.lua", "a2");
  EXPECT_FALSE(w.wait(200ms));
  write_file(d / "sub/b.lua", "b2");
  ASSERT_TRUE(w.wait(2s));
}

// Waits (at most 5 s) for the child to end; its wait status.
std::optional<int> wait_end(ChildRun& c) {
  std::optional<int> st;
  for (int i = 0; i < 500 && !(st = c.finished()); ++i) std::this_thread::sleep_for(10ms);
  return st;
}

bool wait_ready(ChildRun& c) {
  for (int i = 0; i < 500; ++i) {
    if (c.ready()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(ChildRun, ReportsTheExitStatus) {
  ChildRun c([](const ChildRun::Ready& ready) { return ready() ? 3 : 9; }, {});
  c.go();
  const auto st = wait_end(c);
  ASSERT_TRUE(st);
  EXPECT_EQ(describe_status(*st), "exit 3");
}

// The standby: ready first, the run itself only after go(), however long that takes.
TEST(ChildRun, RunsOnlyAfterGo) {
  TempDir d;
  const std::string marker = d / "ran";
  ChildRun c(
      [&marker](const ChildRun::Ready& ready) {
        if (!ready()) return 9;
        write_file(marker, "ran");
        return 0;
      },
      {});
  ASSERT_TRUE(wait_ready(c));
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(fs::exists(marker)) << "the body ran before go()";
  EXPECT_FALSE(c.finished());
  c.go();
  const auto st = wait_end(c);
  ASSERT_TRUE(st);
  EXPECT_EQ(describe_status(*st), "exit 0");
  EXPECT_EQ(read_file(marker), "ran");
}

// A standby dropped without go() never runs its script (and leaves no process).
TEST(ChildRun, DroppedWithoutGoNeverRuns) {
  TempDir d;
  const std::string marker = d / "ran";
  pid_t pid = 0;
  {
    ChildRun c(
        [&marker](const ChildRun::Ready& ready) {
          if (ready()) write_file(marker, "ran");
          return 0;
        },
        {});
    pid = c.pid();
    ASSERT_TRUE(wait_ready(c));
  }
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_NE(::kill(pid, 0), 0) << "the child outlived its ChildRun";
}

TEST(ChildRun, KillEndsTheWholeProcessGroup) {
  TempDir d;
  const std::string pidfile = d / "bg.pid";
  ChildRun c(
      [&pidfile](const ChildRun::Ready& ready) {
        ready();
        ::execl("/bin/sh", "sh", "-c", ("sleep 30 & echo $! > " + pidfile + "; wait").c_str(), nullptr);
        return 127;
      },
      {});
  c.go();
  for (int i = 0; i < 500 && read_file(pidfile).empty(); ++i) std::this_thread::sleep_for(10ms);
  const int bg = std::atoi(read_file(pidfile).c_str());
  ASSERT_GT(bg, 0);
  EXPECT_EQ(describe_status(c.kill()), "signal 9 (Killed)");
  std::this_thread::sleep_for(100ms);
  // The background sleep is gone too (or a zombie waiting for init to reap it).
  const std::string stat = read_file("/proc/" + std::to_string(bg) + "/stat");
  EXPECT_TRUE(stat.empty() || stat.find(") Z ") != std::string::npos) << stat;
}

TEST(ChildRun, UnblocksSignalsAndClosesWhatItIsTold) {
  TempDir d;
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, &old);  // as the watcher blocks what its signalfd reads
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::string out = d / "fd";
  ChildRun c(
      [&out, p](const ChildRun::Ready& ready) {
        ready();
        // The watcher's descriptor is closed in the run: writing to it fails.
        write_file(out, ::write(p[1], "x", 1) < 0 ? "closed" : "open");
        ::kill(::getpid(), SIGTERM);
        ::sleep(20);
        return 0;
      },
      {p[1]});
  c.go();
  const auto st = wait_end(c);
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  ::close(p[0]);
  ::close(p[1]);
  ASSERT_TRUE(st) << "SIGTERM stayed blocked in the child";
  EXPECT_EQ(describe_status(*st), "signal 15 (Terminated)");
  EXPECT_EQ(read_file(out), "closed");
}

TEST(Deps, FeedDependencyAppendsAbsolutePathsOnce) {
  TempDir d;
  const std::string file = d / "deps";
  ::setenv("WARPLAB_DEPS_FILE", file.c_str(), 1);
  warplab::lab::feed_dependency("kernels/../kernels/deps_test_a.cu");
  warplab::lab::feed_dependency("kernels/deps_test_a.cu");  // the same file again
  warplab::lab::feed_dependency("/abs/deps_test_b.cuh");
  ::unsetenv("WARPLAB_DEPS_FILE");
  warplab::lab::feed_dependency("/abs/deps_test_c.cuh");  // no watcher: not recorded
  const std::string a = (fs::current_path() / "kernels/deps_test_a.cu").string();
  EXPECT_EQ(read_deps_file(file).read, (std::vector<std::string>{a, "/abs/deps_test_b.cuh"}));
}

// What the run writes is said before it writes, as "> PATH" (not a dependency): the
// watcher takes those files' events for the run's, not for saves.
TEST(Deps, FeedWrittenSaysWhatTheRunWrites) {
  TempDir d;
  const std::string file = d / "deps";
  ::setenv("WARPLAB_DEPS_FILE", file.c_str(), 1);
  warplab::lab::feed_dependency(d / "gen.cu");
  warplab::lab::feed_written(d / "gen.cu");  // read and written: both said
  warplab::lab::feed_written(d / "gen.cu");
  warplab::lab::feed_written(d / "out.json");
  ::unsetenv("WARPLAB_DEPS_FILE");
  const std::string gen = d / "gen.cu", out = d / "out.json";
  EXPECT_EQ(read_file(file), gen + "\n> " + gen + "\n> " + out + "\n");
  const RunFiles f = read_deps_file(file);
  EXPECT_EQ(f.read, (std::vector<std::string>{d / "gen.cu"}));
  EXPECT_EQ(f.written.count(d / "gen.cu"), 1u);
  EXPECT_EQ(f.written.count(d / "out.json"), 1u);
}

TEST(Deps, ReadDepsFileSkipsBlankLinesAndToleratesAMissingFile) {
  TempDir d;
  write_file(d / "deps", "/a/x.cu\n\n/b/y.cuh\n");
  EXPECT_EQ(read_deps_file(d / "deps").read, (std::vector<std::string>{"/a/x.cu", "/b/y.cuh"}));
  EXPECT_TRUE(read_deps_file(d / "missing").read.empty());
}

TEST(Deps, AFeedFileThatCannotBeReadIsSaidNotTakenForEmpty) {
  TempDir d;
  const std::string dir = d / "deps";
  fs::create_directory(dir);  // there, but no file: reading it fails (as root too)
  const FeedFile r = read_feed_file(dir);
  EXPECT_TRUE(r.text.empty());
  EXPECT_EQ(r.problem, "cannot read " + dir + ": a folder, not a file");
  EXPECT_EQ(read_deps_file(dir).problem, r.problem);
}

// A folder reached through a symbolic link (cur -> v1), the link then pointed elsewhere:
// the set is watched where it leads now, the file counts as saved, and saves in the old
// folder are no longer seen (they were the only ones seen).
// After a failed run the last list is kept too, each file once: 1,000 failed runs of a long
// session leave the list as it was after the first.
TEST(Deps, FilesToWatchStayTheSameOverFailedRuns) {
  const std::vector<std::string> first = files_to_watch({"/a/x.cu", "/a/h.cuh"}, "/a/s.lua", true, {});
  EXPECT_EQ(first, (std::vector<std::string>{"/a/x.cu", "/a/h.cuh", "/a/s.lua"}));
  std::vector<std::string> now = first;
  for (int i = 0; i < 1000; ++i) now = files_to_watch({"/a/x.cu"}, "/a/s.lua", false, now);
  EXPECT_EQ(now, (std::vector<std::string>{"/a/x.cu", "/a/s.lua", "/a/h.cuh"}));
  // A good run watches what it read, and the script.
  EXPECT_EQ(files_to_watch({"/a/y.cu", "/a/y.cu"}, "/a/s.lua", true, now),
            (std::vector<std::string>{"/a/y.cu", "/a/s.lua"}));
}

TEST(FileWatcher, AFolderLinkPointedElsewhereIsFollowed) {
  TempDir d;
  fs::create_directories(d / "v1");
  fs::create_directories(d / "v2");
  write_file(d / "v1/s.lua", "one");
  write_file(d / "v2/s.lua", "two");
  fs::create_directory_symlink("v1", d / "cur");
  FileWatcher w;
  w.set_files({d / "cur/s.lua"});
  EXPECT_FALSE(w.wait(100ms));
  fs::create_directory_symlink("v2", d / "cur.new");
  fs::rename(d / "cur.new", d / "cur");  // the link replaced at once
  const auto moved = w.wait(2s);
  ASSERT_TRUE(moved) << "the retarget is a change";
  EXPECT_EQ(moved->paths, one(d / "cur/s.lua"));
  write_file(d / "v2/s.lua", "two, saved");
  const auto saved = w.wait(2s);
  ASSERT_TRUE(saved) << "a save where the link points now";
  EXPECT_EQ(saved->paths, one(d / "cur/s.lua"));
  write_file(d / "v1/s.lua", "one, saved");
  EXPECT_FALSE(w.wait(300ms)) << "the folder the link left";
}

// What the run wrote is dropped from the pending batch (watch/command.cpp: not a save).
TEST(FileWatcher, ForgetDropsPendingPaths) {
  TempDir d;
  write_file(d / "s.lua", "v1");
  write_file(d / "gen.cu", "k");
  FileWatcher w;
  w.set_files({d / "s.lua", d / "gen.cu"});
  write_file(d / "gen.cu", "k2");
  std::this_thread::sleep_for(20ms);
  w.read_events();
  w.forget({d / "gen.cu"});
  EXPECT_FALSE(w.wait(200ms)) << "nothing left to run for";
  write_file(d / "s.lua", "v2");
  write_file(d / "gen.cu", "k3");
  std::this_thread::sleep_for(20ms);
  w.read_events();
  w.forget({d / "gen.cu"});
  const auto b = w.wait(2s);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->paths, one(d / "s.lua"));
}
