// sys_shown_test.cpp: a name a message quotes is printable: control characters (an escape
// sequence that would recolour or clear the terminal), bytes that are not UTF-8 and
// invisible or direction-changing characters are written out, UTF-8 text is kept.
#include <gtest/gtest.h>

#include <string>

#include "sys/shown.hpp"

using warplab::sys::printable;
using warplab::sys::shown;

TEST(SysShown, ControlCharactersAreWrittenOut) {
  EXPECT_EQ(shown("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(shown("a\tb\nc\x7f"), "a\\x09b\\x0ac\\x7f");
  EXPECT_EQ(printable("line one\nline\ttwo\x07", "\n\t"), "line one\nline\ttwo\\x07") << "kept: newline, tab";
  EXPECT_EQ(shown(std::string("nul\0x", 5)), "nul\\x00x");
}

TEST(SysShown, BytesThatAreNotUtf8AreWrittenOutAndUtf8IsKept) {
  EXPECT_EQ(shown("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(shown("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(shown("\xc3"), "\\xc3") << "a lead byte at the end";
  EXPECT_EQ(shown("\xc0\xaf"), "\\xc0\\xaf") << "an overlong '/'";
  EXPECT_EQ(shown("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a surrogate";
  EXPECT_EQ(shown("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80") << "past U+10FFFF";
  EXPECT_EQ(shown("prøfile µs ✓ 𝄞"), "prøfile µs ✓ 𝄞");
}

TEST(SysShown, InvisibleCharactersAreNamed) {
  EXPECT_EQ(shown("pro\u200bfile"), "pro\\u{200b}file");
  EXPECT_EQ(shown("a\u202eb"), "a\\u{202e}b") << "a right-to-left override";
  EXPECT_EQ(shown("\ufeffx"), "\\u{feff}x");
}

TEST(SysShown, LongNamesAreCut) {
  const std::string s(300, 'a');
  EXPECT_EQ(shown(s), std::string(80, 'a') + "... (300 characters)");
}
