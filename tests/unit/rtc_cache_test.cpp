// rtc_cache_test.cpp: the on-disk compile cache: a hit returns the same code, any change
// to the bytes, a header, an option or the architecture misses, a corrupt entry is
// detected and recompiled, two concurrent writers never leave a torn entry, and the
// folder stays under its size bound.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "rtc/cache.hpp"
#include "rtc/compile.hpp"
#include "rtc_test_util.hpp"

using namespace warplab::rtc;
using warplab::test::ScratchDir;

namespace {

const char* kKernel = R"(#include "common.cuh"
__global__ void scale(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= FACTOR; }
)";

struct CacheFixture : ::testing::Test {
  ScratchDir tmp;
  Cache cache{tmp.path() / "cache"};
  Source src;
  Options opt;
  void SetUp() override {
    tmp.write("src/common.cuh", "#define FACTOR 2.0f\n");
    src = load_source(tmp.write("src/k.cu", kKernel));
    opt.arch = "sm_80";
  }
};

}  // namespace

TEST_F(CacheFixture, SecondCompileIsAHitWithTheSameCode) {
  const CompileResult a = compile(src, opt, &cache);
  ASSERT_TRUE(a.ok) << a.log;
  EXPECT_FALSE(a.from_cache);
  const CompileResult b = compile(src, opt, &cache);
  ASSERT_TRUE(b.ok);
  EXPECT_TRUE(b.from_cache);
  EXPECT_EQ(a.cache_key, b.cache_key);
  EXPECT_EQ(a.cubin, b.cubin);
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.entries, b.entries);
  ASSERT_EQ(b.kernels.size(), 1u);
  EXPECT_EQ(a.kernels[0].registers, b.kernels[0].registers);
  ASSERT_EQ(b.dependencies.size(), 1u);
  EXPECT_EQ(a.dependencies[0].hash, b.dependencies[0].hash);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.info().entries, 1u);
}

TEST_F(CacheFixture, AnyChangeMisses) {
  const std::string base = compile(src, opt, &cache).cache_key;
  Options o2 = opt;
  o2.arch = "sm_90";
  EXPECT_NE(compile(src, o2, &cache).cache_key, base) << "architecture";
  Options o3 = opt;
  o3.defines.emplace_back("EXTRA", "1");
  EXPECT_NE(compile(src, o3, &cache).cache_key, base) << "define";
  Options o4 = opt;
  o4.lineinfo = true;
  EXPECT_NE(compile(src, o4, &cache).cache_key, base) << "option";
  tmp.write("src/common.cuh", "#define FACTOR 3.0f\n");  // only the header changes
  const CompileResult h = compile(src, opt, &cache);
  EXPECT_FALSE(h.from_cache);
  EXPECT_NE(h.cache_key, base) << "header bytes";
  Source s2 = src;
  s2.text += "\n";
  EXPECT_NE(compile(s2, opt, &cache).cache_key, h.cache_key) << "source bytes";
}

TEST_F(CacheFixture, FailedCompilesAreNotStored) {
  Source bad = src;
  bad.text = "__global__ void k( { }";
  EXPECT_FALSE(compile(bad, opt, &cache).ok);
  EXPECT_EQ(cache.info().entries, 0u);
}

TEST_F(CacheFixture, CorruptEntryIsDetectedAndRecompiled) {
  const CompileResult a = compile(src, opt, &cache);
  const auto path = cache.dir() / a.cache_key.substr(0, 2) / (a.cache_key + ".wlc");
  ASSERT_TRUE(std::filesystem::exists(path));
  {  // flip one byte in the middle of the payload
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(path) / 2));
    f.put('\x5a');
  }
  const CompileResult b = compile(src, opt, &cache);
  EXPECT_FALSE(b.from_cache);
  EXPECT_EQ(cache.corrupt(), 1u);
  EXPECT_EQ(b.cubin, a.cubin);
  EXPECT_TRUE(compile(src, opt, &cache).from_cache);  // stored again, whole
  std::filesystem::resize_file(path, 10);             // truncated
  EXPECT_FALSE(compile(src, opt, &cache).from_cache);
}

TEST_F(CacheFixture, ConcurrentWritersLeaveAWholeEntry) {
  // Two processes compile and store the same key at the same time, 5 rounds each.
  pid_t kids[2];
  for (pid_t& k : kids) {
    k = fork();
    if (k == 0) {
      Cache c(cache.dir());
      for (int i = 0; i < 5; ++i) {
        c.clear();
        if (!compile(src, opt, &c).ok) _exit(1);
      }
      _exit(0);
    }
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  const CompileResult r = compile(src, opt, &cache);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(cache.corrupt(), 0u);
  for (auto& e : std::filesystem::recursive_directory_iterator(cache.dir()))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << "temp file left: " << e.path();
}

TEST_F(CacheFixture, SizeBoundEvictsLeastRecentlyUsed) {
  const std::uint64_t one = [&] {
    Cache probe(tmp.path() / "probe");
    compile(src, opt, &probe);
    return probe.info().bytes;
  }();
  Cache small(tmp.path() / "small", one * 3 + one / 2);  // room for three entries
  for (int i = 0; i < 6; ++i) {
    Options o = opt;
    o.defines.emplace_back("V", std::to_string(i));
    compile(src, o, &small);
  }
  const Cache::Info info = small.info();
  EXPECT_LE(info.bytes, info.max_bytes);
  EXPECT_GE(info.entries, 1u);
  Options last = opt;
  last.defines.emplace_back("V", "5");
  EXPECT_TRUE(compile(src, last, &small).from_cache) << "the newest entry survives";
}

TEST(CacheKey, LengthPrefixedParts) {
  KeyBuilder a, b;
  a.add("ab").add("c");
  b.add("a").add("bc");
  EXPECT_NE(a.hex(), b.hex());
  EXPECT_EQ(a.hex().size(), 32u);
}

TEST_F(CacheFixture, ImpossibleContentsWithAValidChecksumAreAMiss) {
  CompileResult a = compile(src, opt, &cache);
  ASSERT_TRUE(a.ok);
  for (auto mutate : std::vector<void (*)(CompileResult&)>{
           [](CompileResult& r) { r.kernels[0].registers = -3; },
           [](CompileResult& r) { r.kernels[0].registers = 100000; },
           [](CompileResult& r) { r.kernels[0].spill_load_bytes.reset(); },
           [](CompileResult& r) { r.arch = "gfx1100"; }, [](CompileResult& r) { r.cubin.clear(); },
           [](CompileResult& r) { r.kernels.clear(); }}) {
    CompileResult bad = a;
    mutate(bad);
    cache.store(a.cache_key, bad);  // store() checksums whatever it is given
    EXPECT_FALSE(cache.load(a.cache_key).has_value());
  }
  EXPECT_GE(cache.corrupt(), 6u);
}

TEST_F(CacheFixture, ClearRemovesOnlyEntriesAndRefusesForeignFolders) {
  ASSERT_TRUE(compile(src, opt, &cache).ok);
  tmp.write("cache/zz/notes.txt", "mine");
  tmp.write("cache/ab/notes.txt", "mine");
  const Cache::Cleared c = cache.clear();
  EXPECT_EQ(c.removed, 1u);
  EXPECT_EQ(c.failed, 0u);
  EXPECT_EQ(c.foreign, 2u);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "cache/zz/notes.txt"));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "cache/ab/notes.txt"));
  EXPECT_EQ(cache.info().entries, 0u);

  tmp.write("home/go/src.txt", "precious");
  Cache foreign(tmp.path() / "home");
  EXPECT_THROW(foreign.clear(), Error);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "home/go/src.txt"));
}
