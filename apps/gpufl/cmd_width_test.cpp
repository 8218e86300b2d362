// What the CLI's text says, read as a user reads it: `gpufl diff` names each kernel distinctly with
// its launch shape and counts "changed" by verdict; the ranks comparison lists distinct names.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli_test_util.hpp"
#include "core/output_width.hpp"
#include "fit_text.hpp"

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

// Every bundled session: the H200 fixtures (tests/data/h200, the session scripts/run.sh shows) and
// the golden cases (tests/golden).
std::vector<std::string> bundledSessions() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(kData)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".device.log"))
      out.push_back(kData + "/" + name.substr(0, name.size() - std::strlen(".device.log")));
  }
  for (const auto& e : std::filesystem::directory_iterator(GPUFL_GOLDEN_DIR))
    if (std::filesystem::exists(e.path() / "case.device.log"))
      out.push_back((e.path() / "case").string());
  std::sort(out.begin(), out.end());
  return out;
}

// Terminal columns of a line (UTF-8 code points: the output has no wide characters).
size_t columnsOf(const std::string& line) {
  size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

// Every command's text, on every bundled session, within COLUMNS: the report (plain and
// --verbose), the ranks comparison, diff, sessions, occupancy, and the help of every command.
// Machine formats (cat's NDJSON, --json, exports' files) are not text for reading; diagnostics on
// stderr stay one "file:line: message" line each (what editors and grep expect).
TEST(CliWidth, EveryCommandFitsTheWidthOnEveryBundledSession) {
  const std::vector<std::string> sessions = bundledSessions();
  ASSERT_GE(sessions.size(), 20u);
  std::vector<std::vector<std::string>> runs = {
      {"help"},
      {"--help"},
      {"occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "40000"},
      {"report", kData + "/gloo_rank0", kData + "/gloo_rank1"},
      {"diff", kData + "/gloo_rank0", kData + "/gloo_rank1"}};
  for (const std::string& c : {"report", "cat", "sessions", "export", "occupancy", "trace", "agent",
                               "diff", "monitor", "doctor", "dump"}) {
    runs.push_back({"help", c});
    runs.push_back({c, "--help"});
  }
  for (const std::string& p : sessions) {
    runs.push_back({"report", p});
    runs.push_back({"report", p, "--verbose"});
    runs.push_back({"sessions", p});
    runs.push_back({"diff", p, p});
    runs.push_back({"diff", kData + "/pytorch_train_trace", p});
  }
  for (const char* width : {"80", "120", "200"}) {
    const Columns columns(width);
    const size_t w = std::stoul(width);
    for (const auto& args : runs) {
      const auto r = runCaptured(args);
      std::string what;
      for (const std::string& a : args) what += " " + a;
      EXPECT_NE(r.code, kExitUsage) << what << "\n" << r.err;
      for (const std::string& l : lines(r.out))
        EXPECT_LE(columnsOf(l), w) << "gpufl" << what << " at COLUMNS=" << width << ":\n" << l;
    }
  }
}

// `gpufl doctor`'s and help's lines: a long line continues under its last column, lines that fit
// are kept as they are (aligned columns and all).
TEST(CliWidth, FitLinesWrapsUnderTheLastColumn) {
  const std::string text =
      "  engine              verdict   why\n"
      "  None                refused   no NVIDIA driver (libcuda.so.1 not found); start the "
      "container with --gpus all\n";
  const auto out = lines(fitLines(text, 60));
  ASSERT_EQ(out.size(), 5u) << fitLines(text, 60);
  EXPECT_EQ(out[0], "  engine              verdict   why");
  EXPECT_EQ(out[1], "  None                refused   no NVIDIA driver");
  EXPECT_EQ(out[2], "                                (libcuda.so.1 not found);");
  EXPECT_EQ(out[3], "                                start the container with");
  EXPECT_EQ(out[4], "                                --gpus all");
  EXPECT_EQ(fitLines(text, kUnlimitedWidth), text);
}

}  // namespace
}  // namespace gpufl::cli
