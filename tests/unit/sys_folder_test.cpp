// sys_folder_test.cpp: temporary files never fail a command (sys/temp.hpp: a TMPDIR that is
// missing, not a folder or unusable falls back to /tmp with a note), and a folder counts as
// the user's own (sys/own_folder.hpp) only when owned by the user, not writable by group or
// others, and not reached through another user's symbolic link. Being root here, another
// user is simulated by chown to `nobody` (those cases skip when not root).
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "rtc_test_util.hpp"
#include "sys/own_folder.hpp"
#include "sys/temp.hpp"

using namespace warplab::sys;
using warplab::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

// Sets (or unsets, with nullopt) an environment variable for one scope.
class EnvVar {
 public:
  EnvVar(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~EnvVar() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The uid of `nobody` when this process may give files away (root); else nullopt.
std::optional<uid_t> nobody() {
  const passwd* pw = ::getpwnam("nobody");
  if (::geteuid() != 0 || !pw) return std::nullopt;
  return pw->pw_uid;
}

unsigned mode_of(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

}  // namespace

TEST(SysTemp, ABadTmpdirFallsBackToTmpWithOneNote) {
  for (const char* bad : {"/nonexistent", "/dev/null"}) {
    const EnvVar t("TMPDIR", bad);
    const TempRoot r = temp_root();
    EXPECT_EQ(r.dir, "/tmp") << bad;
    EXPECT_EQ(r.note.rfind(std::string("TMPDIR='") + bad + "' cannot hold temporary files (", 0), 0u)
        << r.note;
    EXPECT_NE(r.note.find("): using /tmp"), std::string::npos) << r.note;
    EXPECT_EQ(r.note.find('\n'), std::string::npos);
    const TempFile f = make_temp_file("warplab-test-");
    ASSERT_TRUE(f.fd) << f.note;
    EXPECT_EQ(f.path.rfind("/tmp/warplab-test-", 0), 0u);
    EXPECT_FALSE(f.note.empty());
    ::unlink(f.path.c_str());
  }
  const EnvVar t("TMPDIR", std::nullopt);
  EXPECT_EQ(temp_root().dir, "/tmp");
  EXPECT_EQ(temp_root().note, "") << "no TMPDIR: nothing to say";
}

TEST(SysTemp, AGoodTmpdirIsUsedForPrivateFilesAndFolders) {
  ScratchDir tmp;
  const EnvVar t("TMPDIR", tmp.path().string());
  EXPECT_EQ(temp_root().dir, tmp.path().string());
  EXPECT_EQ(temp_root().note, "");
  const TempFile f = make_temp_file("warplab-code-");
  ASSERT_TRUE(f.fd) << f.note;
  EXPECT_EQ(fs::path(f.path).parent_path(), tmp.path());
  EXPECT_EQ(mode_of(f.path), 0600u);
  const TempFile g = make_temp_file("warplab-code-");
  EXPECT_NE(f.path, g.path);
  const TempFolder d = make_temp_folder("warplab-deps-");
  ASSERT_FALSE(d.path.empty()) << d.note;
  EXPECT_EQ(fs::path(d.path).parent_path(), tmp.path());
  EXPECT_EQ(mode_of(d.path), 0700u);
}

TEST(SysOwnFolder, OnlyTheUsersOwnPrivateFolderOpens) {
  ScratchDir tmp;
  const std::string dir = (tmp.path() / "cache").string();
  EXPECT_EQ(open_own_folder(dir, false).status, OwnFolder::Status::missing);
  {
    const OwnFolder f = open_own_folder(dir, true);
    EXPECT_EQ(f.status, OwnFolder::Status::ok) << f.problem;
    EXPECT_TRUE(f.fd);
  }
  EXPECT_EQ(mode_of(dir), 0700u) << "made private";
  ::chmod(dir.c_str(), 0775);
  const OwnFolder shared = open_own_folder(dir, false);
  EXPECT_EQ(shared.status, OwnFolder::Status::shared);
  EXPECT_EQ(shared.problem, "can be written by others (mode 0775)");
  EXPECT_FALSE(shared.fd);
  ::chmod(dir.c_str(), 01777);  // sticky or not, others can plant files there
  EXPECT_EQ(open_own_folder(dir, false).status, OwnFolder::Status::shared);
  ::chmod(dir.c_str(), 0500);  // read-only but private: fine
  EXPECT_EQ(open_own_folder(dir, false).status, OwnFolder::Status::ok);
  ::chmod(dir.c_str(), 0700);
  // A link of the user's own to it is fine.
  const std::string link = (tmp.path() / "link").string();
  fs::create_symlink(dir, link);
  EXPECT_EQ(open_own_folder(link, false).status, OwnFolder::Status::ok);
  // A file, a FIFO: not folders (and the FIFO does not block the check).
  const std::string file = tmp.write("file", "x").string();
  EXPECT_EQ(open_own_folder(file, true).status, OwnFolder::Status::not_dir);
  const std::string fifo = (tmp.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(open_own_folder(fifo, false).status, OwnFolder::Status::not_dir);
}

TEST(SysOwnFolder, AnotherUsersFolderOrLinkIsRefused) {
  const auto other = nobody();
  if (!other) GTEST_SKIP() << "needs root to give a folder to nobody";
  ScratchDir tmp;
  const std::string theirs = (tmp.path() / "theirs").string();
  ASSERT_EQ(::mkdir(theirs.c_str(), 0700), 0);
  ASSERT_EQ(::chown(theirs.c_str(), *other, static_cast<gid_t>(-1)), 0);
  const OwnFolder f = open_own_folder(theirs, true);
  EXPECT_EQ(f.status, OwnFolder::Status::foreign);
  EXPECT_EQ(f.problem, "belongs to another user (uid " + std::to_string(*other) + ")");
  // Their link to a private folder of ours (as planted in /tmp) leads nowhere.
  const std::string mine = (tmp.path() / "mine").string();
  ASSERT_EQ(::mkdir(mine.c_str(), 0700), 0);
  const std::string planted = (tmp.path() / "planted").string();
  fs::create_symlink(mine, planted);
  ASSERT_EQ(::lchown(planted.c_str(), *other, static_cast<gid_t>(-1)), 0);
  const OwnFolder l = open_own_folder(planted, true);
  EXPECT_EQ(l.status, OwnFolder::Status::foreign);
  EXPECT_EQ(l.problem, "is a symbolic link of another user's (uid " + std::to_string(*other) + ")");
}
