// Report golden tests: every tests/golden/<case>/ holds a small session
// (case.{device,scope,system}.log) and the reports it must produce (expected.txt, expected.json),
// read through reportFromPrefix with the time pinned. To accept new output:
// scripts/regen-goldens.sh (runs this test with GPUFL_REGEN_GOLDENS=1), then review the diff of the
// expected files by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace gpufl::report {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGeneratedAt = "2026-05-22 05:05:33 UTC";

std::vector<std::string> goldenCases() {
  std::vector<std::string> cases;
  for (const auto& entry : fs::directory_iterator(GPUFL_GOLDEN_DIR)) {
    if (entry.is_directory() && fs::exists(entry.path() / "case.device.log"))
      cases.push_back(entry.path().filename().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> splitLines(const std::string& s) {
  std::vector<std::string> lines;
  std::stringstream ss(s);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  return lines;
}

// A line diff from the longest common subsequence, printed as "-expected" / "+actual" with a little
// context.
std::string lineDiff(const std::string& expected, const std::string& actual) {
  std::vector<std::string> a = splitLines(expected), b = splitLines(actual);
  size_t n = a.size(), m = b.size();
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<std::string> ops;  // " x", "-x", "+x"
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back(" " + a[i++]);
      ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      ops.push_back("+" + b[j++]);
    } else {
      ops.push_back("-" + a[i++]);
    }
  }
  std::string out;
  constexpr size_t kContext = 2;
  for (size_t k = 0; k < ops.size(); ++k) {
    bool near_change = false;
    for (size_t d = (k > kContext ? k - kContext : 0); d <= std::min(ops.size() - 1, k + kContext);
         ++d)
      near_change |= ops[d][0] != ' ';
    if (near_change) out += std::to_string(k + 1) + ": " + ops[k] + "\n";
  }
  return out;
}

class Golden : public testing::TestWithParam<std::string> {
 protected:
  void check(bool as_json, const char* expected_name) {
    fs::path dir = fs::path(GPUFL_GOLDEN_DIR) / GetParam();
    ReportOptions options;
    options.top_n = 10;
    options.generated_at = kGeneratedAt;
    ReportOutput out = reportFromPrefix((dir / "case").string(), "", options, as_json);
    ASSERT_TRUE(out.ok) << out.error;
    fs::path expected_path = dir / expected_name;
    if (const char* regen = std::getenv("GPUFL_REGEN_GOLDENS");
        regen && std::string(regen) == "1") {
      std::ofstream(expected_path, std::ios::binary) << out.text;
      std::cout << "wrote " << expected_path.string() << "\n";
      return;
    }
    ASSERT_TRUE(fs::exists(expected_path))
        << expected_path << " is missing; run scripts/regen-goldens.sh";
    std::string expected = readFile(expected_path);
    EXPECT_TRUE(expected == out.text)
        << "report differs from " << expected_path.string() << " (line: -expected +actual):\n"
        << lineDiff(expected, out.text)
        << "If the change is intended, run scripts/regen-goldens.sh and review the "
           "diff of the expected files.";
  }
};

TEST_P(Golden, Text) {
  check(false, "expected.txt");
}
TEST_P(Golden, Json) {
  check(true, "expected.json");
}

INSTANTIATE_TEST_SUITE_P(Cases, Golden, testing::ValuesIn(goldenCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(GoldenCases, AllPresent) {
  std::vector<std::string> want = {"coalescing",          "empty",           "garbage",
                                   "incident_cuda_error", "incident_dump",   "incident_hang",
                                   "incident_oom",        "incident_signal", "incident_terminate",
                                   "launch_bound",        "numba_matmul",    "occupancy"};
  EXPECT_EQ(goldenCases(), want);
}

// Broken lines do not stop the report; they are counted and each comes back as a warning for
// stderr.
TEST(GoldenCases, GarbageIsReportedNotFatal) {
  ReportOptions options;
  options.generated_at = kGeneratedAt;
  ReportOutput out =
      reportFromPrefix(std::string(GPUFL_GOLDEN_DIR) + "/garbage/case", "", options, false);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_FALSE(out.warnings.empty());
  ReportOutput clean =
      reportFromPrefix(std::string(GPUFL_GOLDEN_DIR) + "/numba_matmul/case", "", options, false);
  EXPECT_TRUE(clean.warnings.empty()) << clean.warnings.front();
}

TEST(GoldenCases, MissingPrefixIsAnError) {
  ReportOutput out =
      reportFromPrefix(std::string(GPUFL_GOLDEN_DIR) + "/no_such_case/case", "", {}, false);
  EXPECT_FALSE(out.ok);
  EXPECT_FALSE(out.error.empty());
}

}  // namespace
}  // namespace gpufl::report
