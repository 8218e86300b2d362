// reportFromPrefix on logs that lost data: the session summary at the top says what is missing.
#include <gtest/gtest.h>

#include "log/reader_test_util.hpp"
#include "report/report.hpp"

namespace gpufl::report {
namespace {

using log::testing::sessionStartLine;
using log::testing::TempDir;
using log::testing::writeFile;

const std::string kId = "22222222-bbbb-0000-0000-000000000000";

std::string kernel(int64_t start) {
  return R"({"type":"kernel_event","sid":"22222222","k":1,"stream":0,"scope":0,"dur_ns":5,"start_ns":)" +
         std::to_string(start) +
         R"(,"corr":1})"
         "\n";
}
const std::string kDef =
    R"j({"type":"kernel_def","sid":"22222222","k":1,"name":"_Z1kv","demangled":"k()","grid":"(4,1,1)","block":"(32,1,1)"})j"
    "\n";
const std::string kEnd =
    R"({"type":"session_end","sid":"22222222","end_ns":90,"kernels":7,"memcpys":0,"scopes":0})"
    "\n";

// The line of `text` that starts with `label` (after indentation), or "" when there is none.
std::string lineWith(const std::string& text, const std::string& label) {
  size_t at = text.find("  " + label);
  if (at == std::string::npos) return "";
  return text.substr(at, text.find('\n', at) - at);
}

TEST(ReportLogLoss, MissingSegmentAndShortCountsAreInTheSessionSummary) {
  TempDir dir;
  const std::string p = dir.path("run");
  writeFile(p + ".device.000001.log", sessionStartLine(kId, 1) + kDef + kernel(10) + kernel(20));
  writeFile(p + ".device.000003.log", kernel(50) + kernel(60));
  writeFile(p + ".device.log", kernel(70) + kEnd);
  writeFile(p + ".scope.log", sessionStartLine(kId, 1) + kEnd);
  writeFile(p + ".system.log", sessionStartLine(kId, 1) + kEnd);
  const ReportOutput out = reportFromPrefix(p, "", {}, false);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_NE(
      out.text.find("  Log Incomplete:       2 of 7 kernel events written were not read; device\n"
                    "                        segment 000002 missing\n"),
      std::string::npos)
      << out.text;
  EXPECT_LT(out.text.find("Log Incomplete:"), out.text.find("Kernel Execution Summary"))
      << out.text;
  EXPECT_EQ(lineWith(out.text, "Reader Warnings:").find("none"), std::string::npos) << out.text;
  const ReportOutput json = reportFromPrefix(p, "", {}, true);
  EXPECT_NE(json.text.find(R"("log_incomplete": [)"), std::string::npos) << json.text;
}

TEST(ReportLogLoss, CompleteLogSaysNothing) {
  TempDir dir;
  const std::string p = dir.path("run");
  const std::string end =
      R"({"type":"session_end","sid":"22222222","end_ns":90,"kernels":1,"memcpys":0,"scopes":0})"
      "\n";
  writeFile(p + ".device.log", sessionStartLine(kId, 1) + kDef + kernel(10) + end);
  writeFile(p + ".scope.log", sessionStartLine(kId, 1) + end);
  writeFile(p + ".system.log", sessionStartLine(kId, 1) + end);
  const ReportOutput out = reportFromPrefix(p, "", {}, false);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lineWith(out.text, "Log Incomplete:"), "") << out.text;
  // Reader warnings are listed only when there are some (and always under --verbose).
  EXPECT_EQ(lineWith(out.text, "Reader Warnings:"), "") << out.text;
  const ReportOutput verbose =
      reportFromPrefix(p, "", {.top_n = 10, .generated_at = "", .verbose = true}, false);
  EXPECT_EQ(lineWith(verbose.text, "Reader Warnings:"), "  Reader Warnings:      none")
      << verbose.text;
}

// A kernel_def lost with a damaged line: its kernels are counted under an explicit unknown name,
// and nothing is made up about their launch shape (no default grid, no advice that depends on it).
TEST(ReportLogLoss, KernelsOfAMissingKernelDefAreUnknownNotInvented) {
  TempDir dir;
  const std::string p = dir.path("run");
  const std::string end =
      R"({"type":"session_end","sid":"22222222","end_ns":90,"kernels":1,"memcpys":0,"scopes":0})"
      "\n";
  writeFile(
      p + ".device.log",
      sessionStartLine(kId, 1) +
          R"({"type":"kernel_event","sid":"22222222","k":7,"stream":0,"scope":0,"dur_ns":5,"start_ns":10,"corr":1})"
          "\n" +
          end);
  writeFile(p + ".scope.log", sessionStartLine(kId, 1) + end);
  writeFile(p + ".system.log", sessionStartLine(kId, 1) + end);
  const ReportOutput out = reportFromPrefix(p, "", {}, false);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_NE(out.text.find("<unknown kernel def 7>"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("(1,1,1)"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("      launch shape unknown (no kernel_def)"), std::string::npos)
      << out.text;
  const ReportOutput json = reportFromPrefix(p, "", {}, true);
  EXPECT_NE(json.text.find(R"("name": "<unknown kernel def 7>")"), std::string::npos) << json.text;
  EXPECT_EQ(json.text.find("(1,1,1)"), std::string::npos) << json.text;
}

}  // namespace
}  // namespace gpufl::report
