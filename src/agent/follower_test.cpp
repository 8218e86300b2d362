// The reader half of the agent on real files: rotation and compression under it, a file replaced, a
// segment deleted, damaged lines, a full spool. Each check reads the spooled batches back.
#include "agent/follower.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/gzip.hpp"
#include "log/compressor.hpp"

namespace gpufl::agent {
namespace {

namespace fs = std::filesystem;

class FollowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gpufl_follower_test_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    std::string error;
    ASSERT_TRUE(spool_.open((dir_ / "state" / "spool").string(), uint64_t{1} << 30, &error))
        << error;
    follower_ = std::make_unique<Follower>(FollowerConfig{"host", 1 << 20, 1 << 20, 1}, state_, mu_,
                                           spool_, metrics_, [this] { return ++saves_ > 0; });
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string prefix() const { return (dir_ / "run").string(); }
  fs::path active() const { return prefix() + ".device.log"; }
  fs::path segment(int n) const {
    char num[8];
    std::snprintf(num, sizeof num, "%06d", n);
    return prefix() + ".device." + num + ".log";
  }
  void append(const std::string& text) {
    std::ofstream(active(), std::ios::app | std::ios::binary) << text;
  }
  std::string line(int n) {
    return "{\"type\":\"kernel_event\",\"sid\":\"abcd0001\",\"n\":" + std::to_string(n) + "}\n";
  }

  // Scans, follows every stream, and returns what the spool holds (and empties it).
  std::string round() {
    ScanResult scan = scanRoots({WatchRoot{dir_.string(), ""}}, [](const std::string&) {});
    for (const auto& [key, files] : scan.streams) follower_->follow(files);
    std::string all;
    BatchHeader h;
    std::string body, error, text;
    while (spool_.oldest(&h, &body, 0, &error)) {
      EXPECT_TRUE(gunzip(body, &text));
      all += text;
      keys_.push_back(h.key);
      spool_.remove(h.id);
    }
    return all;
  }

  fs::path dir_;
  AgentState state_;
  std::mutex mu_;
  Spool spool_;
  AgentMetrics metrics_;
  int saves_ = 0;
  std::unique_ptr<Follower> follower_;
  std::vector<std::string> keys_;
};

// A stop while a large file is being read: follow() returns after the batch in progress, its
// position saved; the next follow() goes on from there, nothing lost or repeated.
TEST_F(FollowerTest, AStopEndsTheReadAfterTheBatchInProgress) {
  std::atomic<bool> stop{true};
  FollowerConfig cfg{"host", 1000, 1 << 20, 1};
  cfg.stop = &stop;
  follower_ = std::make_unique<Follower>(cfg, state_, mu_, spool_, metrics_,
                                         [this] { return ++saves_ > 0; });
  std::string all;
  for (int i = 0; i < 2000; ++i) all += line(i);
  append(all);
  const std::string first = round();
  EXPECT_GT(first.size(), 0u);
  EXPECT_LT(first.size(), 2000u) << "read past the first batch of 1000 bytes";
  stop = false;
  EXPECT_EQ(first + round(), all);
}

TEST_F(FollowerTest, FollowsRotationAndCompressionWithoutRepeatsOrGaps) {
  append(line(0) + line(1));
  EXPECT_EQ(round(), line(0) + line(1));
  append(line(2));
  fs::rename(active(), segment(1));  // rotation after line 2; the agent had read up to line 1
  append(line(3));
  EXPECT_EQ(round(), line(2) + line(3));
  append(line(4));
  fs::rename(active(), segment(2));
  std::string error;
  ASSERT_EQ(log::compressSegment(segment(2), segment(2).string() + ".zst", 3, &error),
            log::CompressResult::kDone);
  append(line(5));
  EXPECT_EQ(round(), line(4) + line(5));
  EXPECT_EQ(round(), "");
  EXPECT_EQ(metrics_.lines_read.load(), 6u);
  EXPECT_EQ(metrics_.errors("file_replaced") + metrics_.errors("segment_missing"), 0u);
  EXPECT_GT(saves_, 0);
}

TEST_F(FollowerTest, ResumesFromCheckpointWithSameKeys) {
  append(line(0) + line(1));
  round();
  std::vector<std::string> first_keys = keys_;
  // A new follower over the same state (a restart) reads nothing again; with the state forgotten
  // (a kill before the checkpoint) it reads the same lines into a batch with the same key.
  follower_ = std::make_unique<Follower>(FollowerConfig{"host", 1 << 20, 1 << 20, 1}, state_, mu_,
                                         spool_, metrics_, [] { return true; });
  EXPECT_EQ(round(), "");
  state_.streams.clear();
  keys_.clear();
  EXPECT_EQ(round(), line(0) + line(1));
  EXPECT_EQ(keys_, first_keys);
}

TEST_F(FollowerTest, ReplacedFileIsReadFromItsStart) {
  append(line(0) + line(1));
  round();
  fs::remove(active());
  append("{\"type\":\"session_start\",\"sid\":\"ffff0002\"}\n" + line(7));
  EXPECT_EQ(round(), "{\"type\":\"session_start\",\"sid\":\"ffff0002\"}\n" + line(7));
  EXPECT_EQ(metrics_.errors("file_replaced"), 1u);
}

TEST_F(FollowerTest, MissingSegmentIsCountedAndSkipped) {
  append(line(0));
  fs::rename(active(), segment(1));
  round();
  append(line(1));
  fs::rename(active(), segment(2));
  append(line(2));
  fs::rename(active(), segment(3));
  fs::remove(segment(2));  // deleted before the agent got to it
  append(line(3));
  EXPECT_EQ(round(), line(2) + line(3));
  EXPECT_EQ(metrics_.errors("segment_missing"), 1u);
}

TEST_F(FollowerTest, PrefixDeletedAndReusedIsReadWhole) {
  append(line(0));
  fs::rename(active(), segment(1));
  append(line(1));
  fs::rename(active(), segment(2));
  append(line(2));
  EXPECT_EQ(round(), line(0) + line(1) + line(2));
  fs::remove(segment(1));
  fs::remove(segment(2));
  fs::remove(active());
  ScanResult empty = scanRoots({WatchRoot{dir_.string(), ""}}, [](const std::string&) {});
  EXPECT_EQ(forgetVanishedStreams(state_, empty), 1u);
  // A new program on the same prefix: numbering starts at 1 again.
  append("{\"type\":\"session_start\",\"sid\":\"bbbb0002\"}\n" + line(10));
  fs::rename(active(), segment(1));
  append(line(11));
  EXPECT_EQ(round(), "{\"type\":\"session_start\",\"sid\":\"bbbb0002\"}\n" + line(10) + line(11));
}

TEST_F(FollowerTest, DamagedLinesAreSkippedTheRestShipped) {
  append(line(0) + "not json\n" + "{\"type\":\"x\"}\n" + line(1) +
         "{\"type\":\"session_end\",\"sid\":\"abcd0001\"}\n");
  EXPECT_EQ(round(), line(0) + line(1) + "{\"type\":\"session_end\",\"sid\":\"abcd0001\"}\n");
  EXPECT_EQ(metrics_.errors("corrupt_line"), 2u);
  EXPECT_EQ(metrics_.lines_read.load(), 5u);
}

TEST_F(FollowerTest, FullSpoolPausesReadingUntilDrained) {
  std::string all;
  for (int i = 0; i < 100; ++i) all += line(i);
  append(all);
  Spool small;  // a tiny bound: every put fills it
  std::string error;
  ASSERT_TRUE(small.open((dir_ / "state" / "spool2").string(), 1, &error));
  Follower f(FollowerConfig{"host", 64, 1 << 20, 1}, state_, mu_, small, metrics_,
             [] { return true; });
  ScanResult scan = scanRoots({WatchRoot{dir_.string(), ""}}, [](const std::string&) {});
  std::string got, body, text;
  BatchHeader h;
  for (int rounds = 0; rounds < 1000 && got.size() < all.size(); ++rounds) {
    for (const auto& [key, files] : scan.streams) f.follow(files);
    EXPECT_LE(small.count(), 1u);  // one batch at a time: reading waited for the spool
    while (small.oldest(&h, &body, 0, &error)) {
      ASSERT_TRUE(gunzip(body, &text));
      got += text;
      small.remove(h.id);
    }
  }
  EXPECT_EQ(got, all);
}

}  // namespace
}  // namespace gpufl::agent
