#include "report/aggregate/interval_union.hpp"

#include <gtest/gtest.h>

namespace gpufl::report {
namespace {

TEST(IntervalUnion, OverlapsCountOnce) {
  IntervalUnion u;
  u.add(0, 10);
  u.add(5, 15);
  u.add(20, 30);
  EXPECT_EQ(u.coveredNs(), 25);  // [0,15) + [20,30)
}

TEST(IntervalUnion, OutOfOrderAndBridging) {
  IntervalUnion u;
  u.add(20, 30);
  u.add(0, 10);
  u.add(5, 25);  // joins both
  EXPECT_EQ(u.coveredNs(), 30);
  EXPECT_EQ(u.pending(), 1u);
}

TEST(IntervalUnion, ContainedTouchingAndEmpty) {
  IntervalUnion u;
  u.add(0, 100);
  u.add(10, 20);
  u.add(100, 150);  // touches
  u.add(200, 200);  // empty
  u.add(300, 250);  // reversed: ignored
  EXPECT_EQ(u.coveredNs(), 150);
  EXPECT_EQ(u.pending(), 1u);
}

TEST(IntervalUnion, MemoryStaysBoundedAndExactInOrder) {
  IntervalUnion u(4);
  for (int64_t i = 0; i < 100; ++i) u.add(2 * i, 2 * i + 1);
  EXPECT_EQ(u.coveredNs(), 100);
  EXPECT_LE(u.pending(), 5u);
  EXPECT_FALSE(u.clipped());
}

TEST(IntervalUnion, VeryLateIntervalIsClippedAtTheWatermark) {
  IntervalUnion u(4);
  for (int64_t i = 0; i < 10; ++i) u.add(10 * i, 10 * i + 5);  // commits the oldest
  u.add(0, 100);
  EXPECT_TRUE(u.clipped());
  // Everything up to the watermark was already counted; the rest of [0,100) joins the pending ones.
  int64_t covered = u.coveredNs();
  EXPECT_GE(covered, 60);
  EXPECT_LE(covered, 100);
}

}  // namespace
}  // namespace gpufl::report
