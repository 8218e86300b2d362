#include "log/json_escape.hpp"

#include <gtest/gtest.h>

namespace gpufl::log {
namespace {

std::string esc(std::string_view s) {
  std::string out;
  appendJsonString(out, s);
  return out;
}

const std::string kFffd = "\xEF\xBF\xBD";

TEST(JsonEscape, PlainTextIsQuotedOnly) {
  EXPECT_EQ(esc(""), "\"\"");
  EXPECT_EQ(esc("gemm_kernel<128, 64>(float*)"), "\"gemm_kernel<128, 64>(float*)\"");
  EXPECT_EQ(esc("a/b'c"), "\"a/b'c\"");  // '/' and '\'' need no escape in JSON
}

TEST(JsonEscape, QuotesBackslashAndNamedControls) {
  EXPECT_EQ(esc("say \"hi\"\\"), R"("say \"hi\"\\")");
  EXPECT_EQ(esc("a\nb\tc\rd\be\ff"), R"("a\nb\tc\rd\be\ff")");
}

TEST(JsonEscape, OtherControlCharactersUseUnicodeEscapes) {
  EXPECT_EQ(esc(std::string_view("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
}

// DEL and C1 controls are valid JSON raw, but a terminal that the output is printed on may act on
// them.
TEST(JsonEscape, DelAndC1ControlsUseUnicodeEscapes) {
  EXPECT_EQ(esc("a\x7f"
                "b\xC2\x80"
                "c\xC2\x9B"
                "31m\xC2\x9F\xC2\xA0"),
            "\"a\\u007fb\\u0080c\\u009b31m\\u009f\xC2\xA0\"");  // U+00A0 is printable: kept
}

TEST(JsonEscape, ValidUtf8IsKept) {
  EXPECT_EQ(esc("µs \xE2\x86\x92 \xF0\x9F\x9A\x80"), "\"µs \xE2\x86\x92 \xF0\x9F\x9A\x80\"");
  EXPECT_EQ(esc("\xF4\x8F\xBF\xBF"), "\"\xF4\x8F\xBF\xBF\"");  // U+10FFFF, the last code point
}

TEST(JsonEscape, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(esc("a\xFF"
                "b"),
            "\"a" + kFffd + "b\"");                         // never valid
  EXPECT_EQ(esc("\x80"), "\"" + kFffd + "\"");              // lone continuation
  EXPECT_EQ(esc("\xC0\xAF"), "\"" + kFffd + kFffd + "\"");  // overlong '/': C0 never valid
  EXPECT_EQ(esc("\xE0\x80\xAF"), "\"" + kFffd + kFffd + kFffd + "\"");  // overlong 3-byte
  EXPECT_EQ(esc("\xED\xA0\x80"), "\"" + kFffd + kFffd + kFffd + "\"");  // surrogate U+D800
  EXPECT_EQ(esc("\xF4\x90\x80\x80"), "\"" + kFffd + kFffd + kFffd + kFffd + "\"");  // > U+10FFFF
}

TEST(JsonEscape, TruncatedSequenceIsOneReplacement) {
  // A valid prefix of a sequence (maximal subpart) becomes a single U+FFFD, and the next byte is
  // kept.
  EXPECT_EQ(esc("x\xE2\x86"), "\"x" + kFffd + "\"");
  EXPECT_EQ(esc("\xE2\x86y"), "\"" + kFffd + "y\"");
  EXPECT_EQ(esc("\xF0\x9F\x9A\""), "\"" + kFffd + "\\\"\"");
}

TEST(JsonEscape, OutputIsAlwaysValidJsonForAnyBytes) {
  // Every single byte and every pair of bytes: the escaped string must be a valid JSON value.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; b += 7) {
      const char s[3] = {static_cast<char>(a), static_cast<char>(b), '\xE2'};
      const std::string out = esc(std::string_view(s, 3));
      ASSERT_TRUE(isJsonValue(out)) << a << " " << b << " -> " << out;
    }
  }
}

TEST(JsonEscape, AppendsWithoutClearing) {
  std::string out = "{\"name\":";
  appendJsonString(out, "k");
  EXPECT_EQ(out, "{\"name\":\"k\"");
}

TEST(IsJsonValue, AcceptsJsonValues) {
  for (const char* s :
       {"0", "-1", "1.5", "1e-05", "2E+10", "-0.0", "true", "false", "null", "\"x\"",
        "\"\\u00e9\\n\"", "[]", "[1, \"a\", [null]]", "{}", " {\"a\": {\"b\": [1,2]}} "}) {
    EXPECT_TRUE(isJsonValue(s)) << s;
  }
}

TEST(IsJsonValue, RejectsOtherText) {
  for (const char* s :
       {"", "01", "1.", ".5", "+1", "1e", "tru", "nul", "\"unterminated", "\"bad\\x\"", "\"\\u12\"",
        "[1,]", "{\"a\"}", "{a:1}", "1 2", "NaN", "Infinity", "./run",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}) {
    EXPECT_FALSE(isJsonValue(s)) << s;
  }
  EXPECT_FALSE(isJsonValue("\"a\x01\""));     // raw control character in a string
  EXPECT_FALSE(isJsonValue("\"\xC0\xAF\""));  // invalid UTF-8 in a string
}

}  // namespace
}  // namespace gpufl::log
