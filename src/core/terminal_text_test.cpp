#include "core/terminal_text.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

TEST(TerminalSafe, PrintableTextAndUtf8AreUnchanged) {
  EXPECT_EQ(terminalSafe("void gemm<float, 128>(float*) — ok"),
            "void gemm<float, 128>(float*) — ok");
  EXPECT_EQ(terminalSafe("Größe 日本 \xF0\x9F\x9A\x80"), "Größe 日本 \xF0\x9F\x9A\x80");
  EXPECT_EQ(terminalSafe(""), "");
}

TEST(TerminalSafe, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(terminalSafe("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(terminalSafe("\x1b]0;pwned\x07\x1b[2J"), "\\x1b]0;pwned\\x07\\x1b[2J");
  EXPECT_EQ(terminalSafe(std::string_view("x\0y\x7f", 4)), "x\\x00y\\x7f");
}

TEST(TerminalSafe, C1AndBidiControlsAreEscaped) {
  EXPECT_EQ(terminalSafe("\xC2\x9B"
                         "31m"),
            "\\u009b31m");  // CSI as a C1 control
  EXPECT_EQ(terminalSafe("ab\xE2\x80\xAE"
                         "cd"),
            "ab\\u202ecd");  // right-to-left override
  EXPECT_EQ(terminalSafe("\xE2\x81\xA6x\xE2\x80\xA8"), "\\u2066x\\u2028");
  EXPECT_EQ(terminalSafe("\xC2\xA0"), "\xC2\xA0");  // U+00A0 is printable
}

TEST(TerminalSafe, BytesThatAreNotUtf8AreEscapedOneByOne) {
  EXPECT_EQ(terminalSafe("\x9b"
                         "1m"),
            "\\x9b1m");                                        // a lone 8-bit CSI
  EXPECT_EQ(terminalSafe("\xC0\x80"), "\\xc0\\x80");           // overlong NUL
  EXPECT_EQ(terminalSafe("\xED\xA0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(terminalSafe("ok\xE6\x97"), "ok\\xe6\\x97");       // cut short
}

}  // namespace
}  // namespace gpufl
