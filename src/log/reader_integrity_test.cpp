// readPrefix on damaged or hostile prefixes: files that are not regular files, missing segments,
// fewer records than session_end says were written, sessions whose sids collide.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "log/read_damage.hpp"
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

// A FIFO (or a link to /dev/zero) in place of a channel file must not hang the reader: every tool
// reads through it. A directory in its place is named as such, not as a missing channel.
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
  EXPECT_TRUE(hasWarning(r.warnings, p + ".scope.log", 0, "not a regular file: a FIFO"))
      << allWarnings(r.warnings);
  EXPECT_TRUE(hasWarning(r.warnings, p + ".system.log", 0, "not a regular file: a directory"));
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.000001.log", 0,
                         "not a regular file: a character device"));
  EXPECT_FALSE(hasWarning(r.warnings, p + ".system.log", 0, "no files for channel"));
  EXPECT_EQ(listSessions(p).size(), 1u);
}

std::string note(const std::string& sid, const std::string& feature) {
  return R"({"type":"note","sid":")" + sid + R"(","feature":")" + feature +
         R"(","status":"on"})"
         "\n";
}

// Two runs whose session ids share their first 8 hex digits append to one prefix: records carry
// only the sid, so a record belongs to the session whose session_start came last before it in its
// channel. Records before any session_start of their channel could belong to either and are skipped
// with a warning.
TEST(ReadPrefixSessions, CollidingSidsAreToldApartBySessionStart) {
  const std::string a = "abcd1234-0000-0000-0000-00000000000a",
                    b = "abcd1234-0000-0000-0000-00000000000b";
  TempDir dir;
  const std::string p = dir.path("run");
  writeFile(p + ".device.log", note("abcd1234", "before any start") + sessionStartLine(a, 100) +
                                   note("abcd1234", "a1") + sessionStartLine(b, 200) +
                                   note("abcd1234", "b1"));
  writeFile(p + ".scope.log", sessionStartLine(a, 100) + note("abcd1234", "a2") +
                                  sessionStartLine(b, 200) + note("abcd1234", "b2"));
  writeFile(p + ".system.log", note("abcd1234", "b3 (a segment lost its session_start)"));
  for (const auto& [want, expected] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"", {"b1", "b2"}}, {b, {"b1", "b2"}}, {a, {"a1", "a2"}}}) {
    RecordingVisitor v;
    ReadOptions options;
    options.session = want;
    const ReadResult r = readPrefix(p, options, v);
    std::vector<std::string> features;
    for (const auto& n : v.notes) features.push_back(n.feature);
    EXPECT_EQ(features, expected) << want;
    ASSERT_EQ(v.starts.size(), 2u) << want;
    EXPECT_EQ(v.starts[0].session_id, want.empty() ? b : want);
    EXPECT_EQ(v.starts[1].session_id, want.empty() ? b : want);
    EXPECT_EQ(r.chosen_session_id, want.empty() ? b : want);
    EXPECT_TRUE(hasWarning(r.warnings, "", 0, "2 sessions share sid 'abcd1234'"))
        << allWarnings(r.warnings);
    EXPECT_TRUE(
        hasWarning(r.warnings, p + ".system.log", 0,
                   "1 records of sid 'abcd1234' before any session_start in this channel skipped"))
        << allWarnings(r.warnings);
  }
  RecordingVisitor v;
  ReadOptions options;
  options.session = "abcd1234";
  EXPECT_FALSE(readPrefix(p, options, v).any_readable);  // ambiguous: the sid names both
  EXPECT_EQ(listSessions(p).size(), 2u);
}

std::string kernel(const std::string& sid, int64_t start) {
  return R"({"type":"kernel_event","sid":")" + sid +
         R"(","k":1,"stream":0,"scope":0,"dur_ns":5,"start_ns":)" + std::to_string(start) +
         R"(,"corr":1})"
         "\n";
}
std::string sessionEnd(const std::string& sid, uint64_t kernels) {
  return R"({"type":"session_end","sid":")" + sid + R"(","end_ns":9,"kernels":)" +
         std::to_string(kernels) +
         R"(,"memcpys":0,"scopes":0})"
         "\n";
}

// A deleted rotated segment in the middle of a session: the numbering has a hole, and session_end
// counts more kernels than were read. Both are warnings and both reach ReadResult, so that the
// report can say so at the top.
TEST(ReadPrefixLoss, MissingSegmentAndShortCountsAreReported) {
  TempDir dir;
  const std::string p = dir.path("run");
  writeFile(p + ".device.000001.log",
            sessionStartLine(kId, 1) + kernel("22222222", 1) + kernel("22222222", 2));
  writeFile(p + ".device.000003.log.zst",
            testing::zstdCompress(kernel("22222222", 5) + kernel("22222222", 6)));
  writeFile(p + ".device.log", kernel("22222222", 7) + sessionEnd("22222222", 7));
  writeFile(p + ".scope.log", sessionStartLine(kId, 1) + sessionEnd("22222222", 7));
  writeFile(p + ".system.log", sessionStartLine(kId, 1) + sessionEnd("22222222", 7));
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  EXPECT_EQ(v.kernels.size(), 5u);
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.000003.log.zst", 0,
                         "segment 000002 of channel 'device' missing before this file"))
      << allWarnings(r.warnings);
  EXPECT_TRUE(
      hasWarning(r.warnings, "", 0, "session_end counts 7 kernel events written; 5 were read"))
      << allWarnings(r.warnings);
  ASSERT_EQ(r.missing_segments.size(), 1u);
  EXPECT_EQ(r.missing_segments[0].channel, "device");
  EXPECT_EQ(r.missing_segments[0].first, 2u);
  EXPECT_EQ(r.missing_segments[0].last, 2u);
  EXPECT_TRUE(r.have_written);
  EXPECT_EQ(r.written.kernels, 7u);
  EXPECT_EQ(r.read.kernels, 5u);
}

// Segments lost before a session began are another session's loss: still a warning, but not this
// session's.
TEST(ReadPrefixLoss, GapBeforeTheSessionStartedIsNotItsLoss) {
  const std::string old_id = "11111111-aaaa-0000-0000-000000000000";
  TempDir dir;
  const std::string p = dir.path("run");
  writeFile(p + ".device.000001.log", sessionStartLine(old_id, 1) + kernel("11111111", 1));
  writeFile(p + ".device.000004.log", sessionStartLine(kId, 2) + kernel("22222222", 1));
  writeFile(p + ".device.log", kernel("22222222", 2) + sessionEnd("22222222", 2));
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  EXPECT_EQ(r.chosen_sid, "22222222");
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.000004.log", 0,
                         "segments 000002-000003 of channel 'device' missing before this file"))
      << allWarnings(r.warnings);
  EXPECT_TRUE(r.missing_segments.empty());
  EXPECT_EQ(r.written.kernels, r.read.kernels);
  EXPECT_FALSE(hasWarning(r.warnings, "", 0, "session_end counts"));
}

std::string textOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What a gate needs: the damage counted, not only warned about. The real H200 session with every
// kernel in one kernel_block: one byte of the block's data changed loses all 9,934 kernels.
TEST(ReadPrefixLoss, DamageIsCountedAndDescribed) {
  const std::string fixture = std::string(GPUFL_TEST_DATA_DIR) + "/h200/pytorch_blocks";
  RecordingVisitor whole_v;
  const ReadResult whole = readPrefix(fixture, {}, whole_v);
  EXPECT_EQ(describeDamage(whole), "") << allWarnings(whole.warnings);
  EXPECT_EQ(whole.read.kernels, 9934u);

  TempDir dir;
  const std::string p = dir.path("blocks");
  std::string device = textOf(fixture + ".device.log");
  const size_t data = device.find("\"data\":\"", device.find("\"type\":\"kernel_block\""));
  ASSERT_NE(data, std::string::npos);
  device[data + 20] = device[data + 20] == 'A' ? 'B' : 'A';
  device.insert(device.find('\n') + 1, "garbage\n");
  writeFile(p + ".device.log", device);
  writeFile(p + ".scope.log", textOf(fixture + ".scope.log"));
  writeFile(p + ".system.log", textOf(fixture + ".system.log"));
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  EXPECT_EQ(r.damaged_lines, 2u);
  EXPECT_EQ(r.lost_kernels, 9934u);
  EXPECT_EQ(r.unreadable_files, 0u);
  EXPECT_EQ(describeDamage(r),
            "2 unreadable lines; 9934 kernel events lost with them; session_end counts 9934 "
            "kernel events, 0 were read");
}

// Values no writer produces used to be read without a word: a start time of INT64_MIN, a kernel
// event before its kernel_def (`gpufl cat`, naming kernels as it goes, then disagreed with the
// report), a kernel id no kernel_def defines. Each is read, and warned about with file and line.
TEST(ReadPrefixSilentValues, NegativeTimesAndLateOrUndefinedKernelIdsAreWarned) {
  TempDir dir;
  const std::string p = dir.path("odd");
  const std::string start = sessionStartLine(kId, 1);
  const std::string negative_start = start.substr(0, start.find("\"start_ns\":1000")) +
                                     "\"start_ns\":-9223372036854775808" +
                                     start.substr(start.find("\"start_ns\":1000") + 15);
  const auto kernel = [](int k, const std::string& start_ns, int corr) {
    return R"({"type":"kernel_event","sid":"22222222","k":)" + std::to_string(k) +
           R"(,"stream":0,"scope":0,"dur_ns":5,"start_ns":)" + start_ns + R"(,"corr":)" +
           std::to_string(corr) + "}\n";
  };
  writeFile(
      p + ".device.log",
      negative_start + kernel(7, "100", 1) +
          R"j({"type":"kernel_def","sid":"22222222","k":7,"name":"f","grid":"(1,1,1)","block":"(1,1,1)"})j"
          "\n" +
          kernel(9, "200", 2) + kernel(7, "-9223372036854775808", 3) + kernel(7, "300", 4));
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  EXPECT_EQ(v.kernels.size(), 4u);  // all read
  const std::string f = p + ".device.log";
  EXPECT_TRUE(hasWarning(r.warnings, f, 1,
                         "session_start: field 'start_ns' is negative (-9223372036854775808 ns)"))
      << allWarnings(r.warnings);
  EXPECT_TRUE(hasWarning(r.warnings, f, 2,
                         "kernel_event: kernel id 7 is used before its kernel_def (" + f + ":3)"))
      << allWarnings(r.warnings);
  EXPECT_TRUE(hasWarning(r.warnings, f, 4,
                         "kernel_event: kernel id 9 has no kernel_def in the session (first used "
                         "here)"))
      << allWarnings(r.warnings);
  EXPECT_TRUE(hasWarning(r.warnings, f, 5, "kernel_event: field 'start_ns' is negative"))
      << allWarnings(r.warnings);
  EXPECT_FALSE(hasWarning(r.warnings, f, 6, "")) << allWarnings(r.warnings);
  EXPECT_EQ(describeDamage(r), "");  // read whole: odd, not damaged
}

}  // namespace
}  // namespace gpufl::log
