// What the CLI's text says, read as a user reads it: `gpufl diff` names each kernel distinctly with
// its launch shape and counts "changed" by verdict; the ranks comparison lists distinct names.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>
#include <sstream>

#include "cli_test_util.hpp"

namespace gpufl::cli {
namespace {

using testing::runCaptured;

const std::string kData = GPUFL_H200_DATA_DIR;

// COLUMNS set for one test (the CLI's width rule reads it), restored after.
class Columns {
 public:
  explicit Columns(const char* value) {
    if (const char* old = getenv("COLUMNS")) old_ = old, had_ = true;
    setenv("COLUMNS", value, 1);
  }
  ~Columns() {
    if (had_)
      setenv("COLUMNS", old_.c_str(), 1);
    else
      unsetenv("COLUMNS");
  }

 private:
  std::string old_;
  bool had_ = false;
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The rows of the "kernels:" table of a diff: each row's line with the lines under it that continue
// it (a folded name), counters lines left out.
std::vector<std::string> kernelRows(const std::string& text) {
  std::vector<std::string> rows;
  bool in = false, header = false;
  for (const std::string& l : lines(text)) {
    if (l.starts_with("kernels:")) {
      in = header = true;
      continue;
    }
    if (!in) continue;
    if (l.empty() || l.starts_with("  (left out")) break;
    if (header) {  // the heading may take two lines; the column headers end it
      header = !l.starts_with("  verdict");
      continue;
    }
    if (l.starts_with("      ")) {
      if (l.find("counters:") == std::string::npos && !rows.empty()) rows.back() += "\n" + l;
    } else {
      rows.push_back(l);
    }
  }
  return rows;
}

// What names a row: the launch shape onwards ("<<<...>>>  name").
std::string identity(const std::string& row) {
  const size_t at = row.find("<<<");
  return at == std::string::npos ? "" : row.substr(at);
}

TEST(CliWidth, DiffOfTwoPyTorchRunsNamesEveryKernelDistinctlyWithItsLaunchShape) {
  const Columns columns("80");
  const auto r = runCaptured({"diff", kData + "/pytorch_train_trace", kData + "/pytorch_blocks"});
  const auto rows = kernelRows(r.out);
  ASSERT_FALSE(rows.empty()) << r.out;
  std::set<std::string> ids;
  for (const std::string& row : rows) {
    const std::string id = identity(row);
    EXPECT_FALSE(id.empty()) << "no launch shape in\n" << row;
    EXPECT_TRUE(ids.insert(id).second) << "two rows read alike:\n" << id << "\n" << r.out;
  }
  for (const std::string& l : lines(r.out)) EXPECT_LE(l.size(), 80u) << l;
}

TEST(CliWidth, DiffCountsChangedByVerdict) {
  const auto json = runCaptured({"diff", kData + "/gloo_rank0", kData + "/gloo_rank1", "--json"});
  size_t changed = 0, same = 0;
  for (size_t at = 0; (at = json.out.find("\"kind\": \"kernel\"", at)) != std::string::npos; ++at) {
    const size_t v = json.out.find("\"verdict\": \"", at) + 12;
    const std::string verdict = json.out.substr(v, json.out.find('"', v) - v);
    if (verdict == "same")
      ++same;
    else if (verdict != "too_few")
      ++changed;
  }
  ASSERT_GT(same, 0u) << json.out;
  const auto text = runCaptured({"diff", kData + "/gloo_rank0", kData + "/gloo_rank1"});
  const std::string want =
      "kernels: " + std::to_string(changed) + " changed, " + std::to_string(same) + " within noise";
  EXPECT_NE(text.out.find(want), std::string::npos) << want << "\n" << text.out;
}

TEST(CliWidth, RanksComparisonListsDistinctKernels) {
  for (const char* width : {"80", "120", "200"}) {
    const Columns columns(width);
    const auto r = runCaptured({"report", kData + "/gloo_rank0", kData + "/gloo_rank1"});
    ASSERT_EQ(r.code, kExitOk) << r.err;
    // The kernel table: its header names the columns, the name last ("Kernel") unless the names
    // were folded onto lines of their own (indented by six).
    bool in = false;
    size_t name_at = std::string::npos;
    bool folded = false;
    std::vector<std::string> names;
    for (const std::string& l : lines(r.out)) {
      EXPECT_LE(l.size(), std::stoul(width)) << l;
      if (l.find("Kernels Across Ranks") != std::string::npos) {
        in = true;
        continue;
      }
      if (!in || l.starts_with("====")) continue;
      if (l.empty() || l.starts_with("  (left out")) break;
      if (l.find("Median") != std::string::npos) {
        name_at = l.rfind("Kernel");
        folded = name_at == std::string::npos;
        continue;
      }
      if (folded && l.starts_with("      "))
        names.push_back(l.substr(6));
      else if (!folded && name_at < l.size())
        names.push_back(l.substr(name_at));
    }
    ASSERT_GT(names.size(), 1u) << r.out;
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << r.out;
  }
}

// The commands fitted so far (diff, sessions) on every bundled session: no line past the width.
TEST(CliWidth, DiffAndSessionsFitTheWidthOnEveryBundledSession) {
  const char* sessions[] = {"gloo_rank0",     "gloo_rank1",          "kernel_zoo_trace",
                            "matmul_tiling",  "memory_coalescing",   "occupancy_reduction",
                            "pytorch_blocks", "pytorch_train_trace", "range_per_kernel",
                            "sass_divergence"};
  for (const char* width : {"80", "120", "200"}) {
    const Columns columns(width);
    const size_t w = std::stoul(width);
    for (const char* name : sessions) {
      const std::string p = kData + "/" + name;
      for (const auto& args : std::vector<std::vector<std::string>>{
               {"sessions", p}, {"diff", p, p}, {"diff", kData + "/pytorch_train_trace", p}}) {
        const auto r = runCaptured(args);
        for (const std::string& l : lines(r.out))
          EXPECT_LE(l.size(), w) << args[0] << " " << name << " at " << width << ":\n" << l;
      }
    }
  }
}

}  // namespace
}  // namespace gpufl::cli
