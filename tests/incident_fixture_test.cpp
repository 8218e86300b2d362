// The report of real incidents recorded on the GPU machine (tests/data/h100/incidents, copied from
// `scripts/gpu-run.sh incidents`' --fixtures): a crash, an out-of-memory error, a sticky CUDA error
// and a hang, each as gpufl traced it, must read as what happened and what to do.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "report/report.hpp"

namespace {

std::string incidentDir(const std::string& kind) {
  return std::string(GPUFL_TEST_DATA_DIR) + "/h100/incidents/" + kind;
}

std::string reportOf(const std::string& kind) {
  gpufl::report::ReportOptions options;
  options.generated_at = "pinned";
  auto out = gpufl::report::reportFromPrefix(incidentDir(kind) + "/" + kind, "", options, false);
  EXPECT_TRUE(out.ok) << out.error;
  return out.text;
}

void expectContains(const std::string& text, const std::string& needle) {
  EXPECT_NE(text.find(needle), std::string::npos) << "missing: " << needle << "\n" << text;
}

// The Incidents section comes first, before the session summary.
void expectIncidentsFirst(const std::string& text) {
  const size_t incidents = text.find("  Incidents\n");
  ASSERT_NE(incidents, std::string::npos) << text;
  EXPECT_LT(incidents, text.find("Session Summary"));
}

TEST(IncidentFixtures, ASegfaultKeepsWhatWasBufferedAndSaysTheSignal) {
  const std::string text = reportOf("crash");
  expectIncidentsFirst(text);
  expectContains(text, "SIGSEGV");
  expectContains(text, "Last Kernels:");  // the kernels before the crash were written
  expectContains(text, "core dump is the program's own");
}

TEST(IncidentFixtures, AnOutOfMemoryErrorSaysWhatWasAskedAndWhatWasFree) {
  const std::string text = reportOf("oom");
  expectIncidentsFirst(text);
  expectContains(text, "out_of_memory");
  expectContains(text, "cudaErrorMemoryAllocation (2) in cudaMalloc");
  expectContains(text, "in scope alloc_step");
  expectContains(text, "Requested:");
}

TEST(IncidentFixtures, AStickyErrorNamesTheKernelsOnTheFaultedContext) {
  const std::string text = reportOf("cuda_error");
  expectIncidentsFirst(text);
  expectContains(text, "cudaErrorIllegalAddress");
  expectContains(text, "Suspects:");
  expectContains(text, "in scope train_step");
  expectContains(text, "compute-sanitizer");
}

TEST(IncidentFixtures, AHangNamesTheRunningKernelAndTheWaitingThread) {
  if (!std::filesystem::exists(incidentDir("hang"))) GTEST_SKIP() << "no hang fixture recorded yet";
  const std::string text = reportOf("hang");
  expectIncidentsFirst(text);
  expectContains(text, "spin_on_flag");
  expectContains(text, "cudaStreamSynchronize");
}

}  // namespace
