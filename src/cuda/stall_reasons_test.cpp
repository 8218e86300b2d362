#include "cuda/stall_reasons.hpp"

#include <gtest/gtest.h>

namespace gpufl::cuda {
namespace {

TEST(StallReasons, ShortNamesKeepNotIssuedDistinct) {
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"),
            "long_scoreboard_not_issued");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_wait"), "wait");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_warpgroup_arrive"),
            "warpgroup_arrive");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_warps_issue_stalled_selected"), "selected");
}

TEST(StallReasons, BookkeepingCountersAreNotReasons) {
  EXPECT_EQ(stallReasonName("smsp__pcsamp_sample_count"), "");
  EXPECT_EQ(stallReasonName("smsp__pcsamp_samples_data_dropped"), "");
}

TEST(StallReasons, UnknownNamesPassThrough) {
  EXPECT_EQ(stallReasonName("smsp__pcsamp_something_new"), "something_new");
  EXPECT_EQ(stallReasonName("no_prefix"), "no_prefix");
}

TEST(StallReasons, IssuingReasons) {
  EXPECT_TRUE(isIssuingReason("selected"));
  EXPECT_TRUE(isIssuingReason("selected_not_issued"));
  EXPECT_FALSE(isIssuingReason("not_selected"));
}

// The table as the H200 reported it (a subset, indices as CUPTI gave them).
TEST(StallReasons, TableByCuptiIndex) {
  StallReasonTable table({14, 15, 0, 36},
                         {"smsp__pcsamp_warps_issue_stalled_long_scoreboard",
                          "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued",
                          "smsp__pcsamp_sample_count", "smsp__pcsamp_warps_issue_stalled_wait"});
  EXPECT_EQ(table.size(), 4u);
  EXPECT_EQ(table.name(14), "long_scoreboard");
  EXPECT_EQ(table.name(15), "long_scoreboard_not_issued");
  EXPECT_EQ(table.name(0), "");
  EXPECT_EQ(table.name(36), "wait");
  EXPECT_EQ(table.name(99), "reason_99");
}

}  // namespace
}  // namespace gpufl::cuda
