#include "core/output_width.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

TEST(OutputWidth, WideMeansNoLimitWhateverElseSays) {
  EXPECT_EQ(outputWidthFrom(true, "80", 100), kUnlimitedWidth);
  EXPECT_EQ(outputWidthFrom(true, nullptr, std::nullopt), kUnlimitedWidth);
}

TEST(OutputWidth, ColumnsThenTerminalThenEighty) {
  EXPECT_EQ(outputWidthFrom(false, "120", 200), 120u);
  EXPECT_EQ(outputWidthFrom(false, nullptr, 200), 200u);
  EXPECT_EQ(outputWidthFrom(false, nullptr, std::nullopt), 80u);
}

TEST(OutputWidth, JunkColumnsIsIgnoredAndTinyOnesRaised) {
  for (const char* junk : {"", "abc", "-5", "0", "12x", "99999999999"})
    EXPECT_EQ(outputWidthFrom(false, junk, std::nullopt), 80u) << junk;
  EXPECT_EQ(outputWidthFrom(false, "10", std::nullopt), kMinOutputWidth);
  EXPECT_EQ(outputWidthFrom(false, nullptr, 12), kMinOutputWidth);
}

}  // namespace
}  // namespace gpufl
