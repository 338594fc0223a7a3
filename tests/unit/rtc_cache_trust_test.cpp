// rtc_cache_trust_test.cpp: the compile cache trusts only a folder of the user's own. A
// folder of another user's (simulated by chown to nobody, as root) or one others can write
// is said once and never used; the folder is made 0700; an entry filed under another key's
// name is a miss; no symbolic link inside the cache is followed (an entry, a shard, the
// marker, a predictable temporary name); a missing HOME with a bad TMPDIR still caches.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "rtc/cache.hpp"
#include "rtc/compile.hpp"
#include "rtc_test_util.hpp"

using namespace warplab::rtc;
using warplab::test::ScratchDir;
namespace fs = std::filesystem;

namespace {

const char* kKernel = "__global__ void scale(float* x) { x[threadIdx.x] *= FACTOR; }\n";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

struct Trust : ::testing::Test {
  ScratchDir tmp;
  fs::path dir = tmp.path() / "cache";
  Source src;
  void SetUp() override { src = load_source(tmp.write("k.cu", kKernel)); }
  Options opt(const std::string& factor) const {
    Options o;
    o.arch = "sm_80";
    o.defines = {{"FACTOR", factor}};
    return o;
  }
  fs::path entry(const std::string& key) const { return dir / key.substr(0, 2) / (key + ".wlc"); }
};

std::optional<uid_t> nobody() {
  const passwd* pw = ::getpwnam("nobody");
  if (::geteuid() != 0 || !pw) return std::nullopt;
  return pw->pw_uid;
}

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

}  // namespace

TEST_F(Trust, TheFolderIsMadePrivate) {
  Cache cache(dir);
  const CompileResult r = compile(src, opt("2.0f"), &cache);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(mode_of(dir), 0700u);
  EXPECT_EQ(mode_of(entry(r.cache_key).parent_path()), 0700u);
  EXPECT_EQ(mode_of(entry(r.cache_key)), 0600u);
  EXPECT_EQ(mode_of(dir / Cache::kMarker), 0600u);
  EXPECT_TRUE(compile(src, opt("2.0f"), &cache).from_cache);
}

TEST_F(Trust, AFolderOfAnotherUserIsNeverUsed) {
  const auto other = nobody();
  if (!other) GTEST_SKIP() << "needs root to give a folder to nobody";
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), *other, static_cast<gid_t>(-1)), 0);
  Cache cache(dir);
  EXPECT_EQ(cache.warning(), "the cache folder " + dir.string() + " belongs to another user (uid " +
                                 std::to_string(*other) + "): compiling without the cache");
  EXPECT_TRUE(compile(src, opt("2.0f"), &cache).ok);
  EXPECT_FALSE(compile(src, opt("2.0f"), &cache).from_cache);
  EXPECT_TRUE(fs::is_empty(dir)) << "nothing written into their folder";
  try {
    cache.clear();
    ADD_FAILURE() << "clear must refuse another user's folder";
  } catch (const Error& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("refusing to clear " + dir.string() + ": it belongs to another user", 0),
        0u)
        << e.what();
  }
}

TEST_F(Trust, AFolderOthersCanWriteIsNeverUsed) {
  for (unsigned mode : {0777u, 0775u, 01777u}) {
    fs::remove_all(dir);
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(dir.c_str(), mode), 0);
    Cache cache(dir);
    EXPECT_NE(cache.warning().find("can be written by others"), std::string::npos) << cache.warning();
    EXPECT_NE(cache.warning().find("compiling without the cache"), std::string::npos);
    compile(src, opt("2.0f"), &cache);
    EXPECT_FALSE(compile(src, opt("2.0f"), &cache).from_cache);
    EXPECT_TRUE(fs::is_empty(dir));
    EXPECT_THROW(cache.clear(), Error);
  }
}

TEST_F(Trust, AnEntryFiledUnderAnotherKeysNameIsAMiss) {
  Cache cache(dir);
  const CompileResult two = compile(src, opt("2.0f"), &cache);
  const CompileResult three = compile(src, opt("3.0f"), &cache);
  ASSERT_NE(two.cache_key, three.cache_key);
  ASSERT_NE(two.cubin, three.cubin);
  // The "3.0f" entry is replaced by a whole, checksummed entry of another key.
  fs::copy_file(entry(two.cache_key), entry(three.cache_key), fs::copy_options::overwrite_existing);
  const CompileResult again = compile(src, opt("3.0f"), &cache);
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.cubin, three.cubin) << "the planted code is never loaded";
  EXPECT_EQ(cache.corrupt(), 1u);
  EXPECT_TRUE(compile(src, opt("3.0f"), &cache).from_cache) << "stored again under its own key";
  EXPECT_FALSE(cache.load("../../../etc/passwd").has_value());
  EXPECT_FALSE(cache.load("").has_value());
}

TEST_F(Trust, ALinkedEntryIsAMissAndIsNeverWrittenThrough) {
  Cache cache(dir);
  const CompileResult r = compile(src, opt("2.0f"), &cache);
  const fs::path e = entry(r.cache_key);
  const fs::path outside = tmp.path() / "outside.wlc";
  fs::copy_file(e, outside);  // a valid entry, reached through a link
  const std::string before = read(outside);
  fs::remove(e);
  fs::create_symlink(outside, e);
  const CompileResult again = compile(src, opt("2.0f"), &cache);
  EXPECT_FALSE(again.from_cache) << "O_NOFOLLOW: a link is not an entry";
  EXPECT_EQ(read(outside), before) << "the link's target is untouched";
  EXPECT_FALSE(fs::is_symlink(e)) << "the link was replaced by an entry";
  EXPECT_TRUE(compile(src, opt("2.0f"), &cache).from_cache);
}

TEST_F(Trust, ALinkedShardIsNeverEntered) {
  Cache cache(dir);
  const CompileResult r = compile(src, opt("2.0f"), &cache);
  const fs::path shard = entry(r.cache_key).parent_path();
  const fs::path elsewhere = tmp.path() / "elsewhere";
  fs::rename(shard, elsewhere);  // a folder holding the valid entry, reached through a link
  fs::create_symlink(elsewhere, shard);
  EXPECT_FALSE(compile(src, opt("3.0f"), &cache).from_cache);
  EXPECT_FALSE(compile(src, opt("2.0f"), &cache).from_cache);
  EXPECT_EQ(fs::directory_iterator(elsewhere)->path().filename(), r.cache_key + ".wlc");
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(elsewhere)) ++n;
  EXPECT_EQ(n, 1u) << "nothing stored through the link";
}

// The old writer used "<entry>.tmp.<pid>.<n>": links planted at those names must not
// make a compile overwrite the file they point to.
TEST_F(Trust, LinksAtPredictableTemporaryNamesAreNotFollowed) {
  Cache probe(tmp.path() / "probe");
  const std::string key = compile(src, opt("2.0f"), &probe).cache_key;
  const fs::path victim = tmp.write("victim.txt", "precious");
  const fs::path shard = entry(key).parent_path();
  fs::create_directories(shard);
  fs::permissions(dir, fs::perms(0700));
  for (int n = 0; n < 16; ++n)
    fs::create_symlink(victim,
                       shard / (key + ".wlc.tmp." + std::to_string(::getpid()) + "." + std::to_string(n)));
  Cache cache(dir);
  ASSERT_TRUE(compile(src, opt("2.0f"), &cache).ok);
  EXPECT_EQ(read(victim), "precious");
  EXPECT_TRUE(compile(src, opt("2.0f"), &cache).from_cache);
}

TEST_F(Trust, ADanglingMarkerLinkCreatesNothing) {
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const fs::path target = tmp.path() / "created-by-warplab";
  fs::create_symlink(target, dir / Cache::kMarker);
  Cache cache(dir);
  ASSERT_TRUE(compile(src, opt("2.0f"), &cache).ok);
  EXPECT_FALSE(fs::exists(fs::symlink_status(target))) << "the link's target was created";
  EXPECT_TRUE(fs::is_symlink(dir / Cache::kMarker));
  EXPECT_TRUE(compile(src, opt("2.0f"), &cache).from_cache);
  // Without a real marker and with a foreign link inside, clear does not claim the folder.
  EXPECT_THROW(cache.clear(), Error);
}

TEST_F(Trust, NoHomeAndABadTmpdirStillCache) {
  const EnvVar a("WARPLAB_CACHE_DIR", std::nullopt), b("XDG_CACHE_HOME", std::nullopt),
      c("HOME", std::nullopt);
  const std::string mine = "/tmp/warplab-cache-" + std::to_string(::geteuid());
  for (const char* bad : {"/nonexistent", "/dev/null"}) {
    const EnvVar t("TMPDIR", bad);
    fs::path d;
    ASSERT_NO_THROW(d = Cache::default_dir());
    EXPECT_EQ(d, mine);
    const Cache cache(d);
    EXPECT_EQ(cache.warning().rfind(std::string("TMPDIR='") + bad + "' cannot hold temporary files", 0), 0u)
        << cache.warning();
    EXPECT_NE(cache.warning().find("using /tmp for the compile cache"), std::string::npos);
  }
  const EnvVar t("TMPDIR", tmp.path().string());
  EXPECT_EQ(Cache::default_dir(), tmp.path() / ("warplab-cache-" + std::to_string(::geteuid())));
  EXPECT_EQ(Cache(Cache::default_dir()).warning(), "");
}

TEST(CacheNoFolder, AnEmptyFolderCachesNothingAndSaysSo) {
  ScratchDir tmp;
  Cache cache("");
  EXPECT_EQ(cache.warning(), "no folder for the compile cache: compiling without the cache");
  const Source src = load_source(tmp.write("k.cu", kKernel));
  Options o;
  o.arch = "sm_80";
  o.defines = {{"FACTOR", "2.0f"}};
  EXPECT_TRUE(compile(src, o, &cache).ok);
  EXPECT_FALSE(compile(src, o, &cache).from_cache);
  EXPECT_EQ(cache.info().entries, 0u);
  EXPECT_EQ(cache.clear().removed, 0u);
}
