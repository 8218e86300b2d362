// Known CUPTI issues by API version and session count: the CPU growth before 13.4 Update 1 (the
// GPU machines' 13.0 Update 1 has it), the timestamp callback registered again from a second
// session, the graph correlation ids after the first session before 13.1 Update 1.
#include "cuda/cupti_known_issues.hpp"

#include <gtest/gtest.h>

namespace gpufl::cuda {
namespace {

bool mentions(const std::vector<std::string>& issues, const std::string& text) {
  for (const std::string& i : issues)
    if (i.find(text) != std::string::npos) return true;
  return false;
}

TEST(CuptiKnownIssues, ReleaseNames) {
  EXPECT_EQ(cuptiReleaseName(130001), "13.0 Update 1");
  EXPECT_EQ(cuptiReleaseName(130400), "13.4");
  EXPECT_EQ(cuptiReleaseName(28), "API 28");
  EXPECT_EQ(cuptiReleaseName(0), "unknown");
}

TEST(CuptiKnownIssues, TheCpuGrowthUntil134Update1) {
  const auto issues = cuptiKnownIssues(130001, 1);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(mentions(issues, "CUPTI 13.0 Update 1: its CPU use grows"));
  EXPECT_TRUE(mentions(cuptiKnownIssues(130400, 1), "grows"));
  EXPECT_TRUE(mentions(cuptiKnownIssues(28, 1), "CUPTI API 28"));
  EXPECT_TRUE(cuptiKnownIssues(130401, 1).empty());
  EXPECT_TRUE(cuptiKnownIssues(130500, 1).empty());
  EXPECT_TRUE(cuptiKnownIssues(0, 1).empty());  // unknown version: nothing claimed
}

TEST(CuptiKnownIssues, ASecondSessionRegistersTheTimestampCallbackAgain) {
  const auto issues = cuptiKnownIssues(130001, 2);
  EXPECT_TRUE(mentions(issues, "registered again (session 2"));
  EXPECT_TRUE(mentions(issues, "correlation ids of cudaGraphLaunch"));
  EXPECT_FALSE(mentions(cuptiKnownIssues(130101, 2), "cudaGraphLaunch"));
  EXPECT_TRUE(mentions(cuptiKnownIssues(130500, 3), "session 3"));
}

}  // namespace
}  // namespace gpufl::cuda
