// Threads and their CPU time read from a fixture /proc tree (and once from the real one): names
// with spaces and parentheses, the filter reading stat only for the threads it wants, a thread that
// exited between the listing and the read, the resident memory.
#include "host/thread_usage.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace gpufl::host {
namespace {

namespace fs = std::filesystem;

class ThreadUsageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpufl_thread_usage_" + std::to_string(getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void task(int tid, const std::string& comm, const std::string& stat) {
    const fs::path dir = root_ / "proc/self/task" / std::to_string(tid);
    fs::create_directories(dir);
    std::ofstream(dir / "comm") << comm << "\n";
    if (!stat.empty()) std::ofstream(dir / "stat") << stat;
  }
  static std::string stat(int tid, const std::string& comm, int utime, int stime) {
    // Fields 14 and 15 (utime, stime) after the command in parentheses.
    return std::to_string(tid) + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " + std::to_string(utime) +
           " " + std::to_string(stime) + " 0 0 20 0 1 0 0\n";
  }
  fs::path root_;
};

TEST_F(ThreadUsageTest, ReadsEveryThreadsNameAndCpuTime) {
  task(100, "python3", stat(100, "python3", 500, 100));
  task(101, "gpufl-writer", stat(101, "gpufl-writer", 30, 12));
  task(102, "odd) (name", stat(102, "odd) (name", 1, 1));
  task(103, "gone", "");  // exited: comm still there, stat not
  auto threads = readThreadUsage(root_.string(), {}, 100);
  std::sort(threads.begin(), threads.end(),
            [](const ThreadUsage& a, const ThreadUsage& b) { return a.tid < b.tid; });
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads[0].name, "python3");
  EXPECT_EQ(threads[0].cpu_ns, 6'000'000'000u);  // 600 ticks at 100 Hz
  EXPECT_EQ(threads[1].name, "gpufl-writer");
  EXPECT_EQ(threads[1].cpu_ns, 420'000'000u);
  EXPECT_EQ(threads[2].name, "odd) (name");
  EXPECT_EQ(threads[2].cpu_ns, 20'000'000u);
}

TEST_F(ThreadUsageTest, TheFilterChoosesWhichThreadsAreRead) {
  task(100, "python3", stat(100, "python3", 500, 100));
  task(101, "gpufl-writer", stat(101, "gpufl-writer", 30, 12));
  const auto threads = readThreadUsage(
      root_.string(), [](int64_t tid, std::string_view name) { return tid == 101 || name == "x"; },
      100);
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0].tid, 101);
}

TEST_F(ThreadUsageTest, NoProcTreeReadsNothing) {
  EXPECT_TRUE(readThreadUsage(root_.string()).empty());
  EXPECT_FALSE(readResidentBytes(root_.string()).has_value());
}

TEST(ThreadUsageReal, FindsThisThreadByItsNameAndTheResidentMemory) {
  pthread_setname_np(pthread_self(), "usage-test");
  bool found = false;
  for (const ThreadUsage& t : readThreadUsage())
    found |= t.name == "usage-test" && t.tid == gettid();
  EXPECT_TRUE(found);
  const auto rss = readResidentBytes();
  ASSERT_TRUE(rss.has_value());
  EXPECT_GT(*rss, 1u << 20);
}

}  // namespace
}  // namespace gpufl::host
