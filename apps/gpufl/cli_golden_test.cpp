// Golden outputs of the CLI's text at 80, 120 and 200 columns
// (tests/golden/cli/<case>.<width>.txt): the report's first tables, `gpufl diff`, the ranks
// comparison, `gpufl sessions` and help, as a user's terminal of that width shows them.
// GPUFL_REGEN_GOLDENS=1 rewrites them (scripts/regen-goldens.sh); review every changed line by
// hand.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_test_util.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;
using testing::runCaptured;

const std::string kData = GPUFL_H200_DATA_DIR;

struct CliCase {
  const char* name;
  std::vector<std::string> args;
};

std::vector<CliCase> cases() {
  return {
      {"report_pytorch", {"report", kData + "/pytorch_train_trace", "--top", "5"}},
      {"diff_pytorch", {"diff", kData + "/pytorch_train_trace", kData + "/pytorch_blocks"}},
      {"ranks_gloo", {"report", kData + "/gloo_rank0", kData + "/gloo_rank1", "--top", "5"}},
      {"sessions_gloo", {"sessions", kData + "/gloo_rank0"}},
      {"help", {"help"}},
      {"help_agent", {"help", "agent"}},
  };
}

// What does not depend on the code: the data directory's place and the time of the run.
std::string pinned(std::string text) {
  for (size_t at; (at = text.find(kData)) != std::string::npos;)
    text.replace(at, kData.size(), "tests/data/h200");
  std::istringstream in(text);
  std::string out;
  for (std::string l; std::getline(in, l);)
    out += (l.find("Generated: ") != std::string::npos ? "  Generated: (pinned)" : l) + "\n";
  return out;
}

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(CliGolden, TextAt80And120And200Columns) {
  const char* old = getenv("COLUMNS");
  const std::string saved = old ? old : "";
  const bool regen =
      getenv("GPUFL_REGEN_GOLDENS") && std::string(getenv("GPUFL_REGEN_GOLDENS")) == "1";
  for (const char* width : {"80", "120", "200"}) {
    setenv("COLUMNS", width, 1);
    for (const CliCase& c : cases()) {
      const auto r = runCaptured(c.args);
      EXPECT_TRUE(r.code == kExitOk || r.code == kExitRegression) << c.name << ": " << r.err;
      const std::string text = pinned(r.out);
      const fs::path path =
          fs::path(GPUFL_GOLDEN_DIR) / "cli" / (std::string(c.name) + "." + width + ".txt");
      if (regen) {
        fs::create_directories(path.parent_path());
        std::ofstream(path, std::ios::binary) << text;
        continue;
      }
      ASSERT_TRUE(fs::exists(path)) << path << " is missing; run scripts/regen-goldens.sh";
      EXPECT_EQ(readFile(path), text) << "gpufl output differs from " << path.string()
                                      << "; if intended, run scripts/regen-goldens.sh and review";
    }
  }
  if (old)
    setenv("COLUMNS", saved.c_str(), 1);
  else
    unsetenv("COLUMNS");
}

}  // namespace
}  // namespace gpufl::cli
