// Which logs `gpufl trace` reports after a run: its prefix and PREFIX.<pid> children written during
// the run, children by pid; an earlier run's logs under the same prefix are left out.
#include "trace_summary.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

class TraceSummaryTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpufl_trace_summary_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void touch(const std::string& name, fs::file_time_type when) {
    std::ofstream(dir_ / name) << "\n";
    fs::last_write_time(dir_ / name, when);
  }
  std::string summary(std::optional<fs::file_time_type> since) {
    std::ostringstream out, err;
    CliContext ctx{out, err};
    printTraceSummary((dir_ / "t").string(), 0, ctx, since);
    return err.str();
  }
  fs::path dir_;
};

TEST_F(TraceSummaryTest, EarlierRunsLogsAreLeftOutAndChildrenComeByPid) {
  const auto now = fs::file_time_type::clock::now();
  const auto old = now - std::chrono::hours(1);
  touch("t.device.log", old);         // an earlier run of the same prefix
  touch("t.424242.device.log", old);  // an earlier run's child
  touch("t.1000.device.log", now);    // this run's children, listed in pid order
  touch("t.999.device.log", now);
  touch("t.12x.device.log", now);  // not a pid
  const std::string text = summary(now - std::chrono::seconds(1));
  EXPECT_EQ(text.find("t.424242"), std::string::npos) << text;
  EXPECT_EQ(text.find("logs: " + (dir_ / "t").string() + ".{"), std::string::npos) << text;
  EXPECT_EQ(text.find("t.12x"), std::string::npos) << text;
  const size_t a = text.find("t.999.{"), b = text.find("t.1000.{");
  ASSERT_NE(a, std::string::npos) << text;
  ASSERT_NE(b, std::string::npos) << text;
  EXPECT_LT(a, b) << "children by pid, not by name";
  // Without a start time every log under the prefix counts.
  EXPECT_NE(summary(std::nullopt).find("t.424242"), std::string::npos);
}

TEST_F(TraceSummaryTest, NothingWrittenSaysSo) {
  const auto now = fs::file_time_type::clock::now();
  touch("t.device.log", now - std::chrono::hours(1));
  const std::string text = summary(now - std::chrono::seconds(1));
  EXPECT_NE(text.find("no log was written under"), std::string::npos) << text;
  EXPECT_NE(text.find("never initialised CUDA"), std::string::npos) << text;
}

// A session without kernels has no Kernel Details section: the summary still stops early.
TEST_F(TraceSummaryTest, ASessionWithoutKernelsIsSummarisedShort) {
  for (const char* channel : {"device", "scope", "system"})
    fs::copy_file(fs::path(GPUFL_GOLDEN_DIR) / "empty" / ("case." + std::string(channel) + ".log"),
                  dir_ / ("t." + std::string(channel) + ".log"));
  const std::string text = summary(std::nullopt);
  EXPECT_NE(text.find("No kernels recorded."), std::string::npos) << text;
  EXPECT_EQ(text.find("Memory Transfer Summary"), std::string::npos) << text;
  EXPECT_EQ(text.find("Collection Notes"), std::string::npos) << text;
  EXPECT_NE(text.find("full report: gpufl report"), std::string::npos) << text;
}

TEST_F(TraceSummaryTest, NoDriverIsNamedAsTheCause) {
  std::ostringstream out, err;
  CliContext ctx{out, err};
  printTraceSummary((dir_ / "t").string(), 0, ctx, std::nullopt,
                    "libcuda.so.1: cannot open shared object file: No such file or directory");
  EXPECT_NE(err.str().find("no NVIDIA driver on this machine (libcuda.so.1: cannot open"),
            std::string::npos)
      << err.str();
  EXPECT_EQ(err.str().find("never initialised CUDA"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace gpufl::cli
