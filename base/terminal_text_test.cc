#include "base/terminal_text.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

TEST(TerminalSafeTest, PlainTextIsUnchanged) {
  EXPECT_EQ(TerminalSafe("lock-0: process 3 (acquire #12) \\ 50% \xC3\xA9t\xC3\xA9 \xE2\x9C\x93"),
            "lock-0: process 3 (acquire #12) \\ 50% \xC3\xA9t\xC3\xA9 \xE2\x9C\x93");
  EXPECT_EQ(TerminalSafe(""), "");
}

TEST(TerminalSafeTest, LineBreaksCannotForgeALine) {
  const std::string key = "k\r\nverdict: VALID\n";
  const std::string shown = TerminalSafe(key);
  EXPECT_EQ(shown, "k\\r\\nverdict: VALID\\n");
  EXPECT_EQ(shown.find_first_of("\r\n"), std::string::npos);
}

TEST(TerminalSafeTest, EscapeSequencesAndOtherControlsAreWrittenOut) {
  EXPECT_EQ(TerminalSafe("\x1b[2J\x1b]0;title\x07"), "\\x1b[2J\\x1b]0;title\\x07");
  EXPECT_EQ(TerminalSafe(std::string("a\0b\tc\x7f", 6)), "a\\x00b\\tc\\x7f");
  // C1 controls (U+009B is a one-character CSI), separators, bidi overrides.
  EXPECT_EQ(TerminalSafe("\xC2\x9B" "31m"), "\\u009b31m");
  EXPECT_EQ(TerminalSafe("a\xE2\x80\xA8" "b\xE2\x80\xAE" "c\xE2\x81\xA6"),
            "a\\u2028b\\u202ec\\u2066");
}

TEST(TerminalSafeTest, BytesThatAreNotUtf8AreWrittenOut) {
  // A lone 0x9b byte is CSI to a terminal in an 8-bit mode.
  EXPECT_EQ(TerminalSafe("a\x9b" "2Jb\xff\xC3"), "a\\x9b2Jb\\xff\\xc3");
  // An overlong form of '\n' is not a newline in disguise.
  EXPECT_EQ(TerminalSafe("\xC0\x8A"), "\\xc0\\x8a");
}

}  // namespace
}  // namespace locksmith
