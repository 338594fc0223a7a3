// sys_write_test.cpp: the one writer (sys/write.hpp): a new file is written whole, an
// existing one is replaced only when allowed (keeping its mode), a failed write (a file
// size limit, a full device) leaves the old file as it was and names the OS reason and the
// path, a symbolic link at the target is never followed nor replaced, a device or FIFO is
// written into rather than replaced, and no temporary file outlives a write.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "rtc_test_util.hpp"
#include "sys/write.hpp"

using namespace warplab::sys;
using warplab::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The names in `dir` other than `keep`: a temporary file left behind shows up here.
std::set<std::string> others(const fs::path& dir, const std::set<std::string>& keep) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (!keep.count(e.path().filename().string())) out.insert(e.path().filename().string());
  return out;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

// Whether `file` is a temporary name write_file uses for a short `name`: "<name>.tmp." and
// 16 lower-case hex digits.
bool is_temp_name_for(const std::string& name, const std::string& file) {
  const std::string stem = name + ".tmp.";
  if (file.size() != stem.size() + 16 || file.compare(0, stem.size(), stem) != 0) return false;
  return file.find_first_not_of("0123456789abcdef", stem.size()) == std::string::npos;
}

}  // namespace

TEST(SysWrite, NewFileIsWrittenWholeWithTheUmaskMode) {
  ScratchDir tmp;
  const fs::path p = tmp.path() / "out.cubin";
  std::string big(3 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 31);
  const WriteResult r = write_file(p.string(), big);
  ASSERT_TRUE(r) << r.message;
  EXPECT_EQ(read(p), big);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(mode_of(p), 0666u & ~mask);
  EXPECT_TRUE(others(tmp.path(), {"out.cubin"}).empty());
}

TEST(SysWrite, ReplaceNeverKeepsTheExistingFile) {
  ScratchDir tmp;
  const fs::path p = tmp.write("h.cuh", "#define KEEP 1\n");
  const WriteResult r = write_file(p.string(), "cubin bytes", Replace::never);
  EXPECT_EQ(r.status, WriteResult::Status::exists);
  EXPECT_EQ(r.message, "'" + p.string() + "' already exists");
  EXPECT_EQ(read(p), "#define KEEP 1\n");
  EXPECT_TRUE(others(tmp.path(), {"h.cuh"}).empty()) << "the temporary file is removed";
}

TEST(SysWrite, ReplaceAllowedReplacesAndKeepsTheMode) {
  ScratchDir tmp;
  const fs::path p = tmp.write("results.json", "old");
  fs::permissions(p, fs::perms(0640));
  const WriteResult r = write_file(p.string(), "new", Replace::allowed);
  ASSERT_TRUE(r) << r.message;
  EXPECT_EQ(read(p), "new");
  EXPECT_EQ(mode_of(p), 0640u);
  EXPECT_TRUE(others(tmp.path(), {"results.json"}).empty());
}

// Replacing goes by the file's own permission, as writing into it would: a read-only file
// is kept. Root may write anything, so as root the attempt runs as `nobody` in a child.
TEST(SysWrite, AReadOnlyFileIsNotReplaced) {
  ScratchDir tmp;
  const fs::path p = tmp.write("ro.txt", "keep");
  fs::permissions(p, fs::perms(0444));
  const std::string want =
      "cannot write '" + p.string() + "': " + std::strerror(EACCES) + " (the old file is unchanged)";
  auto attempt = [&] {
    const WriteResult r = write_file(p.string(), "new", Replace::allowed);
    return r.status == WriteResult::Status::failed && r.error == EACCES && r.message == want;
  };
  if (::geteuid() != 0) {
    EXPECT_TRUE(attempt());
  } else {
    const passwd* pw = ::getpwnam("nobody");
    if (!pw) GTEST_SKIP() << "no user nobody";
    ASSERT_EQ(::chown(tmp.path().c_str(), pw->pw_uid, pw->pw_gid), 0);
    ASSERT_EQ(::chown(p.c_str(), pw->pw_uid, pw->pw_gid), 0);
    const pid_t kid = ::fork();
    ASSERT_GE(kid, 0);
    if (kid == 0) {
      if (::setgid(pw->pw_gid) != 0 || ::setuid(pw->pw_uid) != 0) ::_exit(2);
      ::_exit(attempt() ? 0 : 1);
    }
    int st = 0;
    ::waitpid(kid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
  }
  EXPECT_EQ(read(p), "keep");
}

// A file size limit (RLIMIT_FSIZE) makes write() fail with EFBIG part way, as a full disk
// does with ENOSPC: the old file must come through whole, and the sentence say why.
TEST(SysWrite, AFailedWriteLeavesTheOldFileAndNamesTheReason) {
  ScratchDir tmp;
  const std::string old(10000, 'o');
  const fs::path p = tmp.write("k.cubin", old);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  const pid_t kid = ::fork();
  ASSERT_GE(kid, 0);
  if (kid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // else the limit kills the process instead of failing the write
    const rlimit lim{64 << 10, 64 << 10};
    ::setrlimit(RLIMIT_FSIZE, &lim);
    const WriteResult r = write_file(p.string(), std::string(1 << 20, 'n'), Replace::allowed);
    const std::string msg = r.message;
    [[maybe_unused]] const ssize_t n = ::write(pipefd[1], msg.data(), msg.size());
    ::_exit(r.status == WriteResult::Status::failed && r.error == EFBIG ? 0 : 1);
  }
  ::close(pipefd[1]);
  char buf[512] = {};
  [[maybe_unused]] const ssize_t n = ::read(pipefd[0], buf, sizeof buf - 1);
  ::close(pipefd[0]);
  int st = 0;
  ::waitpid(kid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << buf;
  EXPECT_EQ(std::string(buf),
            "cannot write '" + p.string() + "': " + std::strerror(EFBIG) + " (the old file is unchanged)");
  EXPECT_EQ(read(p), old);
  EXPECT_TRUE(others(tmp.path(), {"k.cubin"}).empty()) << "the partial temporary file is removed";
}

TEST(SysWrite, ASymbolicLinkIsNeverFollowedNorReplaced) {
  ScratchDir tmp;
  const fs::path victim = tmp.write("victim.txt", "precious");
  const fs::path link = tmp.path() / "out.cubin";
  fs::create_symlink(victim, link);
  for (Replace rep : {Replace::never, Replace::allowed}) {
    const WriteResult r = write_file(link.string(), "attack", rep);
    EXPECT_EQ(r.status, WriteResult::Status::link);
    EXPECT_NE(r.message.find("is a symbolic link"), std::string::npos) << r.message;
    EXPECT_EQ(read(victim), "precious");
    EXPECT_TRUE(fs::is_symlink(link));
  }
  // A dangling link: its target is never created.
  const fs::path dangling = tmp.path() / "dangling";
  fs::create_symlink(tmp.path() / "would-be-created", dangling);
  EXPECT_EQ(write_file(dangling.string(), "x", Replace::allowed).status, WriteResult::Status::link);
  EXPECT_FALSE(fs::exists(tmp.path() / "would-be-created"));
  EXPECT_TRUE(others(tmp.path(), {"victim.txt", "out.cubin", "dangling"}).empty());
}

TEST(SysWrite, FoldersAndMissingFoldersAreOneSentence) {
  ScratchDir tmp;
  fs::create_directories(tmp.path() / "d");
  EXPECT_EQ(write_file((tmp.path() / "d").string(), "x", Replace::allowed).status,
            WriteResult::Status::not_file);
  EXPECT_EQ(write_file((tmp.path() / "d").string() + "/", "x", Replace::allowed).status,
            WriteResult::Status::not_file);
  const std::string missing = (tmp.path() / "no" / "such" / "x.cubin").string();
  const WriteResult r = write_file(missing, "x");
  EXPECT_EQ(r.status, WriteResult::Status::failed);
  EXPECT_EQ(r.message, "cannot write '" + missing + "': " + std::strerror(ENOENT));
}

// A FIFO (or a device such as /dev/null) is written into, never replaced by a file.
TEST(SysWrite, AFifoIsWrittenIntoNotReplaced) {
  ScratchDir tmp;
  const fs::path fifo = tmp.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(write_file(fifo.string(), "x", Replace::never).status, WriteResult::Status::exists);
  const WriteResult none = write_file(fifo.string(), "x", Replace::allowed);  // nobody reads
  EXPECT_EQ(none.status, WriteResult::Status::failed);
  EXPECT_NE(none.message.find("no process is reading that FIFO"), std::string::npos) << none.message;
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const WriteResult r = write_file(fifo.string(), "through", Replace::allowed);
  EXPECT_TRUE(r) << r.message;
  char buf[16] = {};
  EXPECT_EQ(::read(reader, buf, sizeof buf), 7);
  EXPECT_STREQ(buf, "through");
  ::close(reader);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// A full device: the OS reason (ENOSPC) is named. A private node of /dev/full, so a bug
// here could never replace the real one.
TEST(SysWrite, AFullDeviceNamesNoSpace) {
  ScratchDir tmp;
  const fs::path full = tmp.path() / "full";
  if (::mknod(full.c_str(), S_IFCHR | 0600, ::makedev(1, 7)) != 0) GTEST_SKIP() << "cannot mknod here";
  const int probe = ::open(full.c_str(), O_WRONLY);
  if (probe < 0) GTEST_SKIP() << "devices do not open here (nodev)";
  ::close(probe);
  const WriteResult r = write_file(full.string(), "x", Replace::allowed);
  EXPECT_EQ(r.status, WriteResult::Status::failed);
  EXPECT_EQ(r.error, ENOSPC);
  EXPECT_EQ(r.message, "cannot write '" + full.string() + "': " + std::strerror(ENOSPC));
  struct stat st {};
  ASSERT_EQ(::lstat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device is still a device";
}

TEST(SysWrite, TemporaryNamesAreUnpredictable) {
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) {
    const std::string n = temp_name_for("k.cubin");
    EXPECT_TRUE(is_temp_name_for("k.cubin", n)) << n;
    seen.insert(n.substr(n.size() - 16));
  }
  EXPECT_EQ(seen.size(), 2000u);
  // Successive names share no run of digits a planter could extrapolate (a pid, a counter).
  const std::string a = temp_name_for("x"), b = temp_name_for("x");
  int same = 0;
  for (std::size_t i = a.size() - 16; i < a.size(); ++i) same += a[i] == b[i];
  EXPECT_LT(same, 12);
  EXPECT_FALSE(is_temp_name_for("k.cubin", "k.cubin.tmp.1234"));
  // A long name is shortened so that its temporary name is still a legal file name.
  EXPECT_LE(temp_name_for(std::string(255, 'n')).size(), 255u);
}

// A signal that ends the process while the one writer's temporary file exists (Ctrl-C, a
// kill) removes that file first; the process still ends by that signal, and the target is
// not made. The child writes 256 MiB; the parent signals it once the temporary file shows.
TEST(SysWrite, ASignalDuringAWriteLeavesNoTemporaryFile) {
  int caught = 0;  // writes the signal ended (one that finished first proves nothing)
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    ScratchDir d;
    const fs::path target = d.path() / "big.bin";
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::signal(SIGINT, SIG_DFL);
      const std::string bytes(256u << 20, 'x');
      (void)write_file(target.string(), bytes, Replace::allowed);
      ::_exit(0);
    }
    // Signalled once bytes are in the temporary file: the writer has taken it as its own by
    // then (between its creation and that moment no handler can know its name).
    bool seen = false;
    for (int i = 0; i < 200000 && !seen; ++i) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(d.path(), ec))
        seen = seen || fs::file_size(e.path(), ec) > 0;
      if (!seen) ::usleep(50);
    }
    ::kill(pid, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(seen) << "the temporary file never showed";
    if (WIFEXITED(status)) continue;  // the write ended before the signal came: nothing to see
    ++caught;
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    EXPECT_EQ(others(d.path(), {}), std::set<std::string>{}) << "signal " << sig;
  }
  EXPECT_GT(caught, 0) << "every write finished before its signal";
}
