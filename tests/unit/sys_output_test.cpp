// sys_output_test.cpp: the one check of an output (sys/output.hpp) and the inputs no
// output replaces: an empty name, a folder, a folder that is not there, a link, an input
// by name, by another name (a hard link, ../x) or noted while the process ran, an existing
// file under Replace::never; and the one writer refusing a noted input at the moment it
// writes, whatever Replace says, the file left as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "rtc_test_util.hpp"
#include "sys/output.hpp"
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

std::string refusal(const fs::path& p, Replace r = Replace::allowed, const std::vector<NamedInput>& in = {}) {
  return output_refusal(p.string(), r, in).value_or("");
}

}  // namespace

TEST(SysOutput, ANewFileInAFolderThatIsThereMayBeWritten) {
  ScratchDir d;
  EXPECT_EQ(output_refusal((d.path() / "new.json").string(), Replace::never), std::nullopt);
  EXPECT_EQ(output_refusal((d.path() / "new.json").string(), Replace::allowed), std::nullopt);
}

TEST(SysOutput, WhatCannotBeAnOutputIsRefusedInOneSentence) {
  ScratchDir d;
  const fs::path old = d.write("old.json", "mine");
  EXPECT_EQ(output_refusal("", Replace::allowed), "an empty file name names no file");
  EXPECT_NE(refusal(d.path()).find("names a folder, not a file"), std::string::npos) << refusal(d.path());
  EXPECT_NE(refusal(d.path() / "..").find("names a folder, not a file"), std::string::npos);
  const std::string missing = refusal(d.path() / "nowhere" / "x.json");
  EXPECT_NE(missing.find("nowhere' of '"), std::string::npos) << missing;
  EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
  EXPECT_NE(refusal(old / "x.json").find("is not a folder"), std::string::npos) << refusal(old / "x.json");
  fs::create_symlink(old, d.path() / "link.json");
  EXPECT_NE(refusal(d.path() / "link.json").find("is a symbolic link"), std::string::npos);
  EXPECT_NE(refusal(old, Replace::never).find("already exists"), std::string::npos);
  EXPECT_EQ(output_refusal(old.string(), Replace::allowed), std::nullopt);
  EXPECT_EQ(read(old), "mine");
}

TEST(SysOutput, ANamedInputByNameOrByAnotherName) {
  ScratchDir d;
  const fs::path script = d.write("s.lua", "print(1)");
  fs::create_hard_link(script, d.path() / "hard.lua");
  fs::create_directory(d.path() / "sub");
  const std::vector<NamedInput> in = {{script.string(), "the script"}};
  EXPECT_EQ(refusal(script, Replace::allowed, in),
            "'" + script.string() + "' is the script: warplab never writes over a file it reads");
  EXPECT_NE(refusal(d.path() / "sub" / ".." / "s.lua", Replace::allowed, in).find("is the script"),
            std::string::npos);
  EXPECT_NE(refusal(d.path() / "hard.lua", Replace::allowed, in).find("is the script"), std::string::npos);
  // Not there yet, yet named as an input (an argument the script may write): refused too.
  EXPECT_NE(
      refusal(d.path() / "out.json", Replace::allowed, {{(d.path() / "out.json").string(), "an argument"}})
          .find("is an argument"),
      std::string::npos);
}

TEST(SysOutput, TheWriterRefusesANotedInputWhateverReplaceSays) {
  ScratchDir d;
  const fs::path kernel = d.write("k.cu", "__global__ void k() {}");
  note_input(kernel.string(), "a kernel source");
  EXPECT_NE(refusal(kernel).find("is a kernel source: warplab never writes over a file it reads"),
            std::string::npos)
      << refusal(kernel);
  const WriteResult w = write_file(kernel.string(), "{}", Replace::allowed);
  EXPECT_EQ(w.status, WriteResult::Status::input);
  EXPECT_NE(w.message.find("is a kernel source"), std::string::npos) << w.message;
  EXPECT_EQ(read(kernel), "__global__ void k() {}");
  // Another name for it is the same input.
  fs::create_hard_link(kernel, d.path() / "again.cu");
  EXPECT_EQ(write_file((d.path() / "again.cu").string(), "{}", Replace::allowed).status,
            WriteResult::Status::input);
  EXPECT_EQ(read(kernel), "__global__ void k() {}");
  // A file that is not an input is replaced as before.
  const fs::path result = d.write("r.json", "old");
  EXPECT_TRUE(write_file(result.string(), "new", Replace::allowed));
  EXPECT_EQ(read(result), "new");
}
