#include "core/checked_math.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedMath, SaturatingAddAndSubtractClampAtBothEnds) {
  EXPECT_EQ(satAdd(int64_t{2}, int64_t{3}), 5);
  EXPECT_EQ(satAdd(kMax, int64_t{1}), kMax);
  EXPECT_EQ(satAdd(kMin, int64_t{-1}), kMin);
  EXPECT_EQ(satSub(int64_t{2}, int64_t{3}), -1);
  EXPECT_EQ(satSub(kMax, int64_t{-1}), kMax);
  EXPECT_EQ(satSub(kMin, int64_t{1}), kMin);
  EXPECT_EQ(satSub(int64_t{0}, kMin), kMax);
  EXPECT_EQ(satAdd(~uint64_t{0}, uint64_t{1}), ~uint64_t{0});
  EXPECT_EQ(satAdd(uint64_t{1}, uint64_t{2}), uint64_t{3});
}

TEST(CheckedMath, SpanIsNeverNegative) {
  EXPECT_EQ(spanNs(10, 25), 15);
  EXPECT_EQ(spanNs(25, 10), 0);
  EXPECT_EQ(spanNs(kMin, kMax), kMax);
  EXPECT_EQ(spanNs(kMax, kMin), 0);
  EXPECT_EQ(spanNs(-1, kMax), kMax);
}

TEST(CheckedMath, WrapRoundTripsEveryPair) {
  for (int64_t a : {kMin, int64_t{-1}, int64_t{0}, int64_t{7}, kMax})
    for (int64_t b : {kMin, int64_t{-1}, int64_t{0}, int64_t{7}, kMax})
      EXPECT_EQ(wrapAdd(b, wrapSub(a, b)), a) << a << " " << b;
}

}  // namespace
}  // namespace gpufl
