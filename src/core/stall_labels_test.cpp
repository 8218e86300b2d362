#include "core/stall_labels.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

TEST(StallLabel, ReadableNames) {
  EXPECT_EQ(stallLabel("long_scoreboard"), "Long Scoreboard");
  EXPECT_EQ(stallLabel("long_scoreboard_not_issued"), "Long Scoreboard (idle)");
  EXPECT_EQ(stallLabel("branch_resolving"), "Branch Resolving");
  EXPECT_EQ(stallLabel("selected"), "Selected");
  EXPECT_EQ(stallLabel("wait"), "Wait");
}

TEST(StallLabel, AcronymsStayCapitals) {
  EXPECT_EQ(stallLabel("lg_throttle"), "LG Throttle");
  EXPECT_EQ(stallLabel("lg_throttle_not_issued"), "LG Throttle (idle)");
  EXPECT_EQ(stallLabel("mio_throttle_not_issued"), "MIO Throttle (idle)");
  EXPECT_EQ(stallLabel("membar"), "Memory Barrier");
}

TEST(StallLabel, FullCounterNamesAndOddInput) {
  EXPECT_EQ(stallLabel("smsp__pcsamp_warps_issue_stalled_mio_throttle"), "MIO Throttle");
  EXPECT_EQ(stallLabel("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"),
            "Long Scoreboard (idle)");
  EXPECT_EQ(stallLabel(""), "(unknown)");
  EXPECT_EQ(stallLabel("_"), "_");
  EXPECT_EQ(stallLabel("reason_7"), "Reason 7");
}

}  // namespace
}  // namespace gpufl
