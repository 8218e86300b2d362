// readPrefix on damaged or hostile prefixes: files that are not regular files, missing segments, fewer records
// than session_end says were written, sessions whose sids collide.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "log/reader.hpp"
#include "log/reader_test_util.hpp"

namespace gpufl::log {
namespace {

using testing::allWarnings;
using testing::hasWarning;
using testing::RecordingVisitor;
using testing::sessionStartLine;
using testing::TempDir;
using testing::writeFile;

const std::string kId = "22222222-bbbb-0000-0000-000000000000";

// A FIFO (or a link to /dev/zero) in place of a channel file must not hang the reader: every tool reads
// through it. A directory in its place is named as such, not as a missing channel.
TEST(ReadPrefixFiles, NonRegularChannelFilesAreWarningsNotHangs) {
  TempDir dir;
  const std::string p = dir.path("run");
  writeFile(p + ".device.log", sessionStartLine(kId, 1));
  ASSERT_EQ(::mkfifo((p + ".scope.log").c_str(), 0644), 0);
  std::filesystem::create_directory(p + ".system.log");
  std::filesystem::create_symlink("/dev/zero", p + ".device.000001.log");
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  EXPECT_TRUE(r.any_readable);
  EXPECT_TRUE(hasWarning(r.warnings, p + ".scope.log", 0, "not a regular file: a FIFO")) << allWarnings(r.warnings);
  EXPECT_TRUE(hasWarning(r.warnings, p + ".system.log", 0, "not a regular file: a directory"));
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.000001.log", 0, "not a regular file: a character device"));
  EXPECT_FALSE(hasWarning(r.warnings, p + ".system.log", 0, "no files for channel"));
  EXPECT_EQ(listSessions(p).size(), 1u);
}

}  // namespace
}  // namespace gpufl::log
