// Answers a user can act on: `cat --channel` keeps to its channel, `agent` says when it has
// nothing to follow.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli_test_util.hpp"

namespace gpufl::cli {
namespace {

using testing::runCaptured;

const std::string kData = GPUFL_H200_DATA_DIR;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(CliAnswers, CatOneChannelPrintsItsSessionStartAndEndOnceInOrder) {
  for (const char* channel : {"scope", "device", "system"}) {
    const auto r = runCaptured({"cat", kData + "/gloo_rank0", "--channel", channel});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    const auto ls = lines(r.out);
    ASSERT_GE(ls.size(), 3u) << channel;
    size_t starts = 0, ends = 0;
    for (const std::string& l : ls) {
      starts += l.starts_with(R"({"type":"session_start")");
      ends += l.starts_with(R"({"type":"session_end")");
    }
    EXPECT_EQ(starts, 1u) << channel;
    EXPECT_EQ(ends, 1u) << channel;
    EXPECT_TRUE(ls.front().starts_with(R"({"type":"session_start")")) << channel;
    EXPECT_TRUE(ls.back().starts_with(R"({"type":"session_end")")) << channel << ls.back();
  }
}

TEST(CliAnswers, AgentWithNothingToFollowSaysSoAndADrainedRunFails) {
  // A prefix in a directory that exists is the silent case: the agent would follow it, waiting.
  const std::string prefix = ::testing::TempDir() + "/gpufl_agent_no_such_prefix";
  const auto r = runCaptured({"agent", "--to", "http://127.0.0.1:9/x", "--listen", "off",
                              "--state-dir", ::testing::TempDir() + "/gpufl_agent_missing",
                              "--exit-when-drained", "/nonexistent/dir", prefix});
  EXPECT_EQ(r.code, kExitFailure) << r.err;
  EXPECT_NE(r.err.find("no GPU Flight logs at '/nonexistent/dir'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no GPU Flight logs at '" + prefix + "'"), std::string::npos) << r.err;
}

TEST(CliAnswers, TopCountsWhatIsShown) {
  auto r = runCaptured({"report", kData + "/pytorch_blocks", "--json", "--top", "2"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  size_t cards = 0;
  for (size_t at = 0; (at = r.out.find("\"group_index\"", at)) != std::string::npos; ++at) ++cards;
  EXPECT_EQ(cards, 2u);
  r = runCaptured({"report", kData + "/occupancy_reduction"});  // two kernels, --top 10
  EXPECT_NE(r.out.find("Top 2 Kernels by Total GPU Time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Kernel Details (Top 2)"), std::string::npos) << r.out;
}

TEST(CliAnswers, AMistypedFlagGetsASuggestion) {
  auto r = runCaptured({"report", kData + "/gloo_rank0", "--tpo", "2"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("--tpo: did you mean '--top'?"), std::string::npos) << r.err;
  r = runCaptured({"diff", "a", "b", "--jsno"});
  EXPECT_NE(r.err.find("--jsno: did you mean '--json'?"), std::string::npos) << r.err;
}

TEST(CliAnswers, WhatIsWrongWithAJunkLogIsSaidFirst) {
  const std::string prefix = ::testing::TempDir() + "/gpufl_junk_first";
  {
    std::ofstream f(prefix + ".device.log");
    f << "this is not a log\n";
  }
  const auto r = runCaptured({"report", prefix});
  EXPECT_EQ(r.code, kExitFailure);
  const auto ls = lines(r.err);
  ASSERT_FALSE(ls.empty());
  EXPECT_NE(ls.front().find(".device.log:1: not a JSON object"), std::string::npos) << r.err;
  std::remove((prefix + ".device.log").c_str());
}

// docs/report.md: identical per-kernel hints (a library's template instances) are said once.
TEST(CliAnswers, TemplateInstancesShareOneHint) {
  const auto r = runCaptured({"report", kData + "/pytorch_train_trace"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const std::string hints = r.out.substr(r.out.find("  Hints"));
  size_t said = 0;
  for (size_t at = 0;
       (at = hints.find("blocks run on 132 SMs: 96 SMs get", at)) != std::string::npos; ++at)
    ++said;
  EXPECT_EQ(said, 1u) << hints;
  EXPECT_NE(hints.find("The same holds for 5 more kernels"), std::string::npos) << hints;
}

}  // namespace
}  // namespace gpufl::cli
