// sys_text_test.cpp: the text helpers every layer shares (sys/text.hpp): the edit distance
// behind each "did you mean", counts with their nouns, a list split and trimmed, lower case
// and joining, each with the edge cases its callers meet (empty text, empty pieces).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sys/text.hpp"

using namespace warplab::sys;

TEST(SysText, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("warp_size", "warp_size"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("sahred", "shared"), 2u);  // a swap is two substitutions
  EXPECT_EQ(edit_distance("atrs", "attrs"), 1u);     // an insertion
  EXPECT_EQ(edit_distance("warps_size", "warp_size"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), edit_distance("lawn", "flaw"));  // symmetric
}

TEST(SysText, PluralIsSingularForOneOnly) {
  EXPECT_EQ(plural(0, "error"), "0 errors");
  EXPECT_EQ(plural(1, "error"), "1 error");
  EXPECT_EQ(plural(2, "error"), "2 errors");
  EXPECT_EQ(plural(1, "launch", "launches"), "1 launch");
  EXPECT_EQ(plural(3, "launch", "launches"), "3 launches");
  EXPECT_EQ(plural(2, "launch was", "launches were"), "2 launches were");
  EXPECT_EQ(plural(-1, "degree"), "-1 degrees");
}

TEST(SysText, SplitKeepsEmptyPiecesAndTrimTakesTheBlanks) {
  EXPECT_EQ(split("shared,memory", ','), (std::vector<std::string>{"shared", "memory"}));
  EXPECT_EQ(split("a,,b,", ','), (std::vector<std::string>{"a", "", "b", ""}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(split("one", ','), (std::vector<std::string>{"one"}));
  EXPECT_EQ(trim("  shared \t"), "shared");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x\r\n", " \r\n"), "x");
  EXPECT_EQ(trim("\rx\r"), "\rx\r");  // only the blanks named
}

TEST(SysText, LowerFoldsAsciiAndJoinSeparatesEachTwo) {
  EXPECT_EQ(lower("CU_DEVICE_ATTRIBUTE_Warp_Size"), "cu_device_attribute_warp_size");
  EXPECT_EQ(lower("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9");  // bytes past ASCII kept
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"sm_80"}, ", "), "sm_80");
  EXPECT_EQ(join({"sm_80", "sm_90", "sm_100"}, ", "), "sm_80, sm_90, sm_100");
  EXPECT_EQ(join({"", "b"}, "; "), "; b");  // an empty item keeps its place
}
