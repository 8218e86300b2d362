#include <gtest/gtest.h>

#include <ctime>
#include <set>

#include "core/clock.hpp"
#include "core/uuid.hpp"

namespace gpufl::core {
namespace {

TEST(ClockTest, MonotonicAndWallClock) {
  const int64_t a = monotonicNs();
  const int64_t b = monotonicNs();
  EXPECT_GT(a, 0);
  EXPECT_LE(a, b);
  EXPECT_EQ(static_cast<int64_t>(timestampCallback()) >= b, true);
  const int64_t wall = unixNs() / 1'000'000'000;
  EXPECT_NEAR(static_cast<double>(wall), static_cast<double>(std::time(nullptr)), 2.0);
  volatile double x = 0;
  for (int i = 0; i < 1000000; ++i) x = x + i;
  EXPECT_GT(threadCpuNs(), 0u);
}

TEST(UuidTest, Version4ShapeAndUnique) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string u = uuidV4();
    ASSERT_TRUE(isUuid(u)) << u;
    EXPECT_EQ(u[14], '4');
    EXPECT_TRUE(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b') << u;
    EXPECT_TRUE(seen.insert(u).second);
  }
  EXPECT_EQ(sidOf("0123abcd-0000-4000-8000-000000000000"), "0123abcd");
  EXPECT_FALSE(isUuid("0123abcd"));
  EXPECT_FALSE(isUuid("0123abcd-0000-4000-8000-00000000000G"));
}

TEST(ClockTest, UtcText) {
  EXPECT_EQ(utcText(1779426333000000000), "2026-05-22 05:05:33 UTC");
  EXPECT_EQ(utcText(0), "1970-01-01 00:00:00 UTC");
}

}  // namespace
}  // namespace gpufl::core
