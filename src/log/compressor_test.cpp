// Compression of closed segments: stale and hostile .zst.tmp files, leftovers of a writer that
// died, a segment another process is compressing, and a close() that a backlog cannot hold up.
#include "log/compressor.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>

#include "log/log_writer.hpp"
#include "log/writer_test_util.hpp"

namespace gpufl::log {
namespace {

using namespace testing;
using Clock = std::chrono::steady_clock;

class CompressorTest : public WriterDirTest {
 protected:
  // A plain segment of `channel` numbered `n`, holding a few distinct lines; returns its path.
  std::string plainSegment(const char* channel, int n) {
    char name[64];
    std::snprintf(name, sizeof name, ".%s.%06d.log", channel, n);
    const std::string path = prefix_ + name;
    std::string text;
    for (int i = 0; i < 100; ++i)
      text += "{\"type\":\"note\",\"n\":" + std::to_string(n * 1000 + i) + "}\n";
    writeFile(path, text);
    return path;
  }
};

// A link at the .tmp path (left by an attacker, or a stale file) is removed, never written through.
TEST_F(CompressorTest, ALinkAtTheTmpPathIsNotFollowed) {
  const std::string seg = plainSegment("device", 1);
  const std::string text = readFile(seg);
  const std::string victim = dir_ + "/victim";
  writeFile(victim, "secret\n");
  ASSERT_EQ(::symlink(victim.c_str(), (seg + ".zst.tmp").c_str()), 0);
  std::string error;
  compressSegment(seg, seg + ".zst", 3, &error);
  EXPECT_EQ(readFile(victim), "secret\n");
  EXPECT_FALSE(fs::exists(seg));
  EXPECT_FALSE(fs::is_symlink(seg + ".zst.tmp"));
  EXPECT_EQ(decompress(seg + ".zst"), text);
}

// A kill during compression leaves the plain segment and a .zst.tmp; the next writer on the prefix
// finishes the job.
TEST_F(CompressorTest, TheNextWriterCompressesLeftoversAndRemovesStaleTmp) {
  const std::string dev = plainSegment("device", 3);
  const std::string scope = plainSegment("scope", 1);
  const std::string dev_text = readFile(dev), scope_text = readFile(scope);
  writeFile(dev + ".zst.tmp", "half a zstd frame");
  LogWriterOptions o;
  o.prefix = prefix_;
  std::string error;
  auto w = LogWriter::open(o, &error);
  ASSERT_TRUE(w) << error;
  w->close();
  EXPECT_FALSE(fs::exists(dev));
  EXPECT_FALSE(fs::exists(scope));
  EXPECT_FALSE(fs::exists(dev + ".zst.tmp"));
  EXPECT_EQ(decompress(dev + ".zst"), dev_text);
  EXPECT_EQ(decompress(scope + ".zst"), scope_text);
}

TEST_F(CompressorTest, ACommandCanCompressLeftoversToo) {
  const std::string seg = plainSegment("system", 7);
  const std::string text = readFile(seg);
  std::string error;
  EXPECT_EQ(compressLeftoverSegments(prefix_, 3, &error), 1u);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_FALSE(fs::exists(seg));
  EXPECT_EQ(decompress(seg + ".zst"), text);
}

// Two processes on one prefix (a writer and a later start) never compress one segment at once:
// the one that finds it locked leaves it, and its .tmp, alone.
TEST_F(CompressorTest, ASegmentLockedByAnotherCompressorIsSkipped) {
  const std::string seg = plainSegment("device", 2);
  writeFile(seg + ".zst.tmp", "in progress elsewhere");
  const int fd = ::open(seg.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  std::string error;
  EXPECT_EQ(compressSegment(seg, seg + ".zst", 3, &error), CompressResult::kSkipped) << error;
  ::close(fd);
  EXPECT_TRUE(fs::exists(seg));
  EXPECT_EQ(readFile(seg + ".zst.tmp"), "in progress elsewhere");
  EXPECT_FALSE(fs::exists(seg + ".zst"));
}

// Before: close() waited for every queued segment (25 s behind 64 busy threads). It waits at most
// close_wait (1 s by default); the rest stay plain, with no .tmp left behind.
TEST_F(CompressorTest, CloseIsBoundedBehindABacklog) {
  LogWriterOptions o;
  o.prefix = prefix_;
  o.rotate_bytes = 1 << 20;
  o.zstd_level = 22;  // slow: the backlog takes many seconds to compress
  std::string error;
  auto w = LogWriter::open(o, &error);
  ASSERT_TRUE(w) << error;
  w->onSessionStart(session("eeeeeeee"));
  for (uint64_t i = 0; i < 600000; ++i) w->onKernel(kernel("eeeeeeee", i));
  const auto t0 = Clock::now();
  w->close();
  const auto took = Clock::now() - t0;
  // Not a timing test: the bound only has to tell "waited for close_wait" from "waited for the
  // whole backlog" (tens of seconds), with room for a loaded CI machine; that segments stay plain
  // says the rest.
  EXPECT_LT(took, std::chrono::seconds(15));
  uint64_t plain = 0, compressed = 0;
  for (const std::string& name : listDir(dir_)) {
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".log.zst") == 0)
      ++compressed;
    else if (name.find(".device.0") != std::string::npos)
      ++plain;
  }
  EXPECT_GT(plain, 0u);
  EXPECT_EQ(plain + compressed, w->stats().segments_rotated);
}

}  // namespace
}  // namespace gpufl::log
