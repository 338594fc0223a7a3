// sys_read_test.cpp: the one reader of whole files (sys/read.hpp): a file read whole, a
// size limit that refuses a longer file, a head read that does not, and the OS reason for a
// file that is missing or cannot be read (never an empty text in its place).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "rtc_test_util.hpp"
#include "sys/read.hpp"

using warplab::sys::read_head;
using warplab::sys::read_whole;
using warplab::test::ScratchDir;

TEST(SysRead, ReadsWholeFilesUpToTheLimit) {
  ScratchDir d;
  const std::string big(200000, 'x');  // more than one read(2) of the reader's buffer
  const std::string path = d.write("k.cu", big).string();
  std::string out = "stale";
  EXPECT_EQ(read_whole(path, out, big.size()), std::nullopt);
  EXPECT_EQ(out, big);
  EXPECT_EQ(read_whole(path, out, big.size() - 1), "larger than 199999 bytes");
  EXPECT_EQ(out, "");  // refused: nothing half read
  EXPECT_EQ(read_whole(d.write("empty", "").string(), out, 10), std::nullopt);
  EXPECT_EQ(out, "");
}

TEST(SysRead, ReadsAHeadWithoutRefusingTheRest) {
  ScratchDir d;
  const std::string path = d.write("x.lua", "-- x.lua: a summary\nprint(1)\n").string();
  std::string out;
  EXPECT_EQ(read_head(path, out, 8), std::nullopt);
  EXPECT_EQ(out, "-- x.lua");
  EXPECT_EQ(read_head(path, out, 1000), std::nullopt);
  EXPECT_EQ(out, "-- x.lua: a summary\nprint(1)\n");
}

TEST(SysRead, AFileThatCannotBeReadSaysWhy) {
  ScratchDir d;
  std::string out = "stale";
  EXPECT_EQ(read_whole((d.path() / "missing").string(), out, 10), std::strerror(ENOENT));
  EXPECT_EQ(out, "");
  // A folder opens, and its read fails (as root too): the reason, not an empty text.
  EXPECT_EQ(read_whole(d.path().string(), out, 10), "a folder, not a file");
  EXPECT_EQ(read_head(d.path().string(), out, 10), "a folder, not a file");
}
