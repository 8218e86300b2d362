#include "runtime/refusal_notes.hpp"

#include <gtest/gtest.h>

namespace gpufl::runtime {
namespace {

TEST(RefusalNotes, OnlyAFeatureTurnedOffIsARefusal) {
  EXPECT_EQ(refusedEngine("pc_sampling", "off"), "PcSampling");
  EXPECT_EQ(refusedEngine("sass_metrics", "off"), "SassMetrics");
  EXPECT_EQ(refusedEngine("range_profiler", "off"), "RangeProfiler");
  EXPECT_EQ(refusedEngine("cupti_activity", "off"), "tracing");
  EXPECT_FALSE(refusedEngine("pc_sampling", "degraded"));
  EXPECT_FALSE(refusedEngine("pc_sampling", "on"));
  EXPECT_FALSE(refusedEngine("log", "off"));
}

TEST(RefusalNotes, AKnownFailureKeepsItsWordsAndGainsWhatToChange) {
  const std::string failure =
      "cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (no permission)";
  const std::string said = reasonWithAdvice("PcSampling", failure);
  EXPECT_NE(said.find(failure), std::string::npos) << said;
  EXPECT_GT(said.size(), failure.size()) << said;
  EXPECT_EQ(said.find("PcSampling refused"), std::string::npos) << said;

  const std::string no_cupti = "libcupti.so.13 not found (looked in /x)";
  const std::string cupti_said = reasonWithAdvice("tracing", no_cupti);
  EXPECT_NE(cupti_said.find(no_cupti), std::string::npos);
  EXPECT_NE(cupti_said.find("GPUFL_CUPTI_DIRS"), std::string::npos) << cupti_said;
}

TEST(RefusalNotes, AnUnknownFailureStaysAsItIs) {
  EXPECT_EQ(reasonWithAdvice("tracing", "gpufl built without CUDA backend"),
            "gpufl built without CUDA backend");
}

}  // namespace
}  // namespace gpufl::runtime
