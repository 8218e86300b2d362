// The writer on a disk that refuses writes (RLIMIT_FSIZE: the same short writes and errors as a
// full disk, without privileges): every record that does not reach a file is counted, and no
// segment is made of lines that were never written.
#include <gtest/gtest.h>

#include <algorithm>

#include "log/log_writer.hpp"
#include "log/writer_test_util.hpp"

namespace gpufl::log {
namespace {

using namespace testing;

using LogWriterFailureTest = WriterDirTest;

TEST_F(LogWriterFailureTest, EveryRecordThatDoesNotReachTheFileIsCounted) {
  auto w = open();
  w->onSessionStart(session("dddddddd"));
  w->flush();
  const uint64_t n = 20000;
  {
    FileSizeLimit limit(100'000);  // the device channel fills up; a line is cut at the limit
    for (uint64_t i = 0; i < n; ++i) w->onKernel(kernel("dddddddd", i));
    w->flush();
  }
  w->onGpuSample(GpuSample{.sid = "dddddddd", .ts_ns = 5});
  w->close();
  const LogWriterStats s = w->stats();
  EXPECT_GT(s.write_errors, 0u);
  EXPECT_NE(s.last_error.find("File too large"), std::string::npos) << s.last_error;
  const std::string dev = readFile(prefix_ + ".device.log");
  EXPECT_EQ(dev.size(), 100'000u);
  const auto whole = static_cast<uint64_t>(std::count(dev.begin(), dev.end(), '\n'));
  EXPECT_GT(s.records_dropped, 0u);
  EXPECT_EQ(whole + s.records_dropped, 1 + n);  // session_start and the kernels
  // The other channels are unaffected.
  EXPECT_EQ(lines(readFile(prefix_ + ".system.log")).size(), 2u);
  EXPECT_EQ(s.bytes_written, fs::file_size(prefix_ + ".device.log") +
                                 fs::file_size(prefix_ + ".scope.log") +
                                 fs::file_size(prefix_ + ".system.log"));
}

// Before: each block of lost lines passed rotate_bytes and renamed the active file into a new
// segment holding nothing but what fit before the limit (110 empty segments in 3 s on a full
// tmpfs).
TEST_F(LogWriterFailureTest, AFullDiskMakesNoSegments) {
  auto w = open(200'000);
  w->onSessionStart(session("dddddddd"));
  w->flush();
  {
    FileSizeLimit limit(4096);
    for (uint64_t i = 0; i < 50000; ++i) w->onKernel(kernel("dddddddd", i));  // about 3 MB
    w->flush();
  }
  w->close();
  const std::vector<std::string> expected = {"run.device.log", "run.scope.log", "run.system.log"};
  EXPECT_EQ(listDir(dir_), expected);
}

// Once writes succeed again, the writer goes on, and rotates when the file really is full.
TEST_F(LogWriterFailureTest, WritingResumesAfterTheDiskFreesUp) {
  auto w = open(200'000);
  w->onSessionStart(session("dddddddd"));
  {
    FileSizeLimit limit(4096);
    for (uint64_t i = 0; i < 20000; ++i) w->onKernel(kernel("dddddddd", i));
    w->flush();
  }
  const uint64_t lost = w->stats().records_dropped;
  EXPECT_GT(lost, 0u);
  for (uint64_t i = 0; i < 20000; ++i) w->onKernel(kernel("dddddddd", i));
  w->close();
  const LogWriterStats s = w->stats();
  EXPECT_EQ(s.records_dropped, lost);
  EXPECT_GE(s.segments_rotated, 1u);
  EXPECT_EQ(s.segments_compressed, s.segments_rotated);
}

}  // namespace
}  // namespace gpufl::log
