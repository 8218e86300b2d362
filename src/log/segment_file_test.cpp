// The files the writer makes: their mode, links at their paths, segment names that are taken, and
// prefixes that name no file.
#include "log/segment_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/log_writer.hpp"
#include "log/writer_test_util.hpp"

namespace gpufl::log {
namespace {

using namespace testing;

class SegmentFileTest : public WriterDirTest {
 protected:
  std::unique_ptr<LogWriter> open(uint64_t rotate_bytes = 0, std::string* error = nullptr) {
    LogWriterOptions o;
    o.prefix = prefix_;
    o.rotate_bytes = rotate_bytes;
    std::string why;
    auto w = LogWriter::open(o, error ? error : &why);
    return w;
  }
  // Writes enough kernels to rotate a 16 KiB file a few times, then closes (compressing).
  void writeRotated() {
    auto w = open(16 << 10);
    ASSERT_TRUE(w);
    w->onSessionStart(session("aaaaaaaa"));
    for (uint64_t i = 0; i < 2000; ++i) w->onKernel(kernel("aaaaaaaa", i));
    w->close();
    ASSERT_GT(w->stats().segments_compressed, 0u);
  }
};

mode_t modeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

class Umask {
 public:
  explicit Umask(mode_t m) : old_(::umask(m)) {}
  ~Umask() { ::umask(old_); }

 private:
  mode_t old_;
};

// 0640 at most; a stricter umask takes its bits away (the compressed segments too).
TEST_F(SegmentFileTest, FilesAre0640LessWhatTheUmaskTakesAway) {
  for (mode_t mask : {mode_t(0), mode_t(022), mode_t(027), mode_t(077)}) {
    {
      Umask m(mask);
      writeRotated();
    }
    for (const std::string& name : listDir(dir_))
      EXPECT_EQ(modeOf(dir_ + "/" + name), 0640u & ~mask)
          << name << " under umask 0" << std::oct << mask;
    fs::remove_all(dir_);
    fs::create_directory(dir_);
  }
}

TEST_F(SegmentFileTest, AnExistingFileKeepsItsMode) {
  writeFile(prefix_ + ".device.log", "");
  ::chmod((prefix_ + ".device.log").c_str(), 0600);
  auto w = open();
  ASSERT_TRUE(w);
  w->close();
  EXPECT_EQ(modeOf(prefix_ + ".device.log"), 0600u);
}

TEST_F(SegmentFileTest, ASymbolicLinkAtALogPathIsRefusedNotFollowed) {
  const std::string victim = dir_ + "/victim";
  writeFile(victim, "secret\n");
  ASSERT_EQ(::symlink(victim.c_str(), (prefix_ + ".system.log").c_str()), 0);
  std::string error;
  auto w = open(0, &error);
  EXPECT_EQ(w, nullptr);
  EXPECT_NE(error.find(prefix_ + ".system.log"), std::string::npos) << error;
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  if (w) {
    w->onSessionStart(session("bbbbbbbb"));
    w->close();
  }
  EXPECT_EQ(readFile(victim), "secret\n");
}

TEST_F(SegmentFileTest, SomethingOtherThanAFileAtALogPathIsRefused) {
  ASSERT_EQ(::mkfifo((prefix_ + ".scope.log").c_str(), 0600), 0);
  std::string error;
  EXPECT_EQ(open(0, &error), nullptr);
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

// A name already taken, even by a dangling link, is never replaced: the segment takes the next
// number.
TEST_F(SegmentFileTest, ASegmentNeverReplacesAnExistingName) {
  auto w = open(16 << 10);
  ASSERT_TRUE(w);
  // Made after open, as by another process: the writer has already chosen number 1.
  const std::string taken = prefix_ + ".device.000001.log";
  ASSERT_EQ(::symlink("/nonexistent/target", taken.c_str()), 0);
  w->onSessionStart(session("cccccccc"));
  for (uint64_t i = 0; i < 500; ++i) w->onKernel(kernel("cccccccc", i));
  w->close();
  ASSERT_TRUE(fs::is_symlink(taken));
  EXPECT_EQ(fs::read_symlink(taken), "/nonexistent/target");
  EXPECT_TRUE(fs::exists(prefix_ + ".device.000002.log.zst"));
}

TEST_F(SegmentFileTest, APrefixNamingADirectoryIsRejected) {
  for (const std::string& prefix : {dir_ + "/", dir_ + "/.", dir_ + "/..", std::string()}) {
    LogWriterOptions o;
    o.prefix = prefix;
    std::string error;
    auto w = LogWriter::open(o, &error);
    EXPECT_EQ(w, nullptr) << prefix;
    if (w) w->close();
    EXPECT_FALSE(error.empty()) << prefix;
  }
  std::string error;
  LogWriterOptions o;
  o.prefix = dir_ + "/";
  EXPECT_EQ(LogWriter::open(o, &error), nullptr);
  EXPECT_NE(error.find("names a directory"), std::string::npos) << error;
  EXPECT_TRUE(listDir(dir_).empty());  // no hidden ".device.log"
}

TEST_F(SegmentFileTest, PlainSegmentsAreListedInOrder) {
  for (const char* name :
       {"run.device.000010.log", "run.device.000002.log", "run.device.000003.log.zst",
        "run.device.log", "run.scope.000001.log", "other.device.000001.log", "run.device.12.log",
        "run.device.000004.log.zst.tmp"})
    writeFile(dir_ + "/" + name, "");
  const std::vector<std::string> expected = {prefix_ + ".device.000002.log",
                                             prefix_ + ".device.000010.log"};
  EXPECT_EQ(plainSegments(prefix_, Channel::Device), expected);
  EXPECT_EQ(nextSegmentNumber(prefix_, Channel::Device), 11u);
}

}  // namespace
}  // namespace gpufl::log
