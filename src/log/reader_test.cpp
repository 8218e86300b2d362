// readPrefix and listSessions on real files: session selection, channel and segment order,
// whole-file problems.
#include "log/reader.hpp"

#include <gtest/gtest.h>

#include <map>

#include "log/read_tally.hpp"
#include "log/reader_test_util.hpp"
#include "log/record_parser.hpp"
#include "log/session_reader.hpp"

namespace gpufl::log {
namespace {

using testing::hasWarning;
using testing::RecordingVisitor;
using testing::sessionStartLine;
using testing::TempDir;
using testing::writeFile;

const std::string kOld = "11111111-aaaa-0000-0000-000000000000";
const std::string kNew = "22222222-bbbb-0000-0000-000000000000";
const std::string kNew2 = "22223333-cccc-0000-0000-000000000000";

std::string note(const std::string& sid, const std::string& feature) {
  return R"({"type":"note","sid":")" + sid + R"(","feature":")" + feature +
         R"(","status":"on"})"
         "\n";
}

// A prefix with three sessions appended to the same files; kNew is the latest. As the writer does,
// every channel has every session's session_start.
struct ThreeSessions {
  TempDir dir;
  std::string prefix = dir.path("run");
  std::string starts(const std::string& after_old, const std::string& after_new2) {
    return sessionStartLine(kOld, 100) + after_old + sessionStartLine(kNew2, 200) + after_new2 +
           sessionStartLine(kNew, 300, "newest");
  }
  ThreeSessions() {
    writeFile(prefix + ".device.log",
              starts(note("11111111", "old"), note("22223333", "new2")) + note("22222222", "new"));
    writeFile(prefix + ".scope.log", starts("", "") + note("22222222", "scope"));
    writeFile(prefix + ".system.log", starts("", ""));
  }
};

TEST(ReadPrefix, DefaultsToTheLatestSessionAndReadsChannelsInOrder) {
  ThreeSessions log;
  RecordingVisitor v;
  const ReadResult r = readPrefix(log.prefix, {}, v);
  EXPECT_EQ(testing::allWarnings(r.warnings), "");
  EXPECT_TRUE(r.found_files);
  EXPECT_TRUE(r.any_readable);
  EXPECT_EQ(r.chosen_sid, "22222222");
  ASSERT_EQ(r.sessions.size(), 3u);
  EXPECT_EQ(r.sessions[0].sid, "11111111");
  EXPECT_EQ(r.sessions[2].app, "newest");
  EXPECT_EQ(r.files,
            (std::vector<std::string>{log.prefix + ".device.log", log.prefix + ".scope.log",
                                      log.prefix + ".system.log"}));
  ASSERT_EQ(v.notes.size(), 2u);
  EXPECT_EQ(v.notes[0].feature, "new");
  EXPECT_EQ(v.notes[1].feature, "scope");
  EXPECT_EQ(v.starts.size(), 3u);  // one session_start per channel
  EXPECT_EQ(r.records, 5u);
  EXPECT_EQ(listSessions(log.prefix).size(), 3u);
}

// One pass per file: the device channel (the big one) is opened once, to decode; only the smallest
// channel is opened a second time, to list the sessions.
TEST(ReadPrefix, EachFileIsReadOnceExceptTheSmallestChannelsListing) {
  ThreeSessions log;
  std::vector<std::string> inputs;
  for (const Channel c : {Channel::Device, Channel::Scope, Channel::System})
    for (const auto& f : channelFiles(log.prefix, c)) inputs.push_back(f);
  ASSERT_EQ(inputs.size(), 3u);
  std::map<std::string, int> opens;
  const SourceOpener open = [&](const std::string& name, std::string* error) {
    ++opens[name];
    return LineSource::openFile(name, kDefaultMaxLineBytes, error);
  };
  RecordingVisitor v;
  WarningList warnings(100);
  ReadResult r;
  readInputs(inputs, open, {}, v, warnings, r);
  EXPECT_EQ(r.chosen_sid, "22222222");
  EXPECT_EQ(r.sessions.size(), 3u);
  EXPECT_EQ(opens[log.prefix + ".device.log"], 1);
  EXPECT_EQ(opens[log.prefix + ".scope.log"], 1);
  EXPECT_EQ(opens[log.prefix + ".system.log"], 2);
}

// Sessions are listed from the channel with the fewest bytes (here system). A session whose
// session_start that channel lacks (a deleted file) is found while decoding and said; asking for it
// by name scans every channel and reads it.
TEST(ReadPrefix, ASessionMissingFromTheListingChannelIsSaidAndCanBeNamed) {
  TempDir dir;
  const std::string p = dir.path("run");
  writeFile(p + ".device.log", sessionStartLine(kOld, 100) + note("11111111", "old") +
                                   sessionStartLine(kNew, 300) + note("22222222", "new"));
  writeFile(p + ".scope.log", sessionStartLine(kOld, 100) + sessionStartLine(kNew, 300));
  writeFile(p + ".system.log", sessionStartLine(kOld, 100));  // kNew's part of it was lost
  RecordingVisitor v;
  ReadResult r = readPrefix(p, {}, v);
  EXPECT_EQ(r.chosen_sid, "11111111");
  ASSERT_EQ(r.sessions.size(), 2u);
  EXPECT_EQ(r.sessions[1].sid, "22222222");
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.log", 0,
                         "session 22222222 (" + kNew +
                             ", app 'app', started 1970-01-01T00:00:00Z) has no session_start in "
                             "channel 'system', where sessions are listed"))
      << testing::allWarnings(r.warnings);
  ReadOptions options;
  options.session = "2222";
  RecordingVisitor named;
  r = readPrefix(p, options, named);
  EXPECT_EQ(r.chosen_sid, "22222222");
  ASSERT_EQ(named.notes.size(), 1u);
  EXPECT_EQ(named.notes[0].feature, "new");
  EXPECT_EQ(testing::allWarnings(r.warnings), "");
}

TEST(ReadPrefix, SelectsBySessionIdPrefixOrSid) {
  ThreeSessions log;
  for (const std::string& want :
       std::vector<std::string>{"1111", "11111111", kOld, "11111111-AAAA"}) {
    RecordingVisitor v;
    ReadOptions options;
    options.session = want;
    const ReadResult r = readPrefix(log.prefix, options, v);
    EXPECT_EQ(r.chosen_sid, "11111111") << want;
    ASSERT_EQ(v.notes.size(), 1u) << want;
    EXPECT_EQ(v.notes[0].feature, "old");
  }
}

TEST(ReadPrefix, AmbiguousOrUnknownSessionReadsNothingAndListsSessions) {
  ThreeSessions log;
  for (const std::string want : {"2222", "99"}) {
    RecordingVisitor v;
    ReadOptions options;
    options.session = want;
    const ReadResult r = readPrefix(log.prefix, options, v);
    EXPECT_FALSE(r.any_readable);
    EXPECT_TRUE(v.notes.empty());
    ASSERT_EQ(r.warnings.size(), 1u);
    const std::string& m = r.warnings[0].message;
    EXPECT_NE(m.find(want == "99" ? "no session matches '99'" : "session '2222' is ambiguous"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("11111111 (" + kOld + ", app 'app', started 1970-01-01T00:00:00Z)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("22223333"), std::string::npos) << m;
  }
}

TEST(ReadPrefix, ExactSidWinsOverLongerMatches) {
  ThreeSessions log;
  RecordingVisitor v;
  ReadOptions options;
  options.session = "22222222";
  EXPECT_EQ(readPrefix(log.prefix, options, v).chosen_sid, "22222222");
}

TEST(ReadPrefix, TiesOnStartTimeGoToTheLastSeen) {
  TempDir dir;
  const std::string prefix = dir.path("t");
  writeFile(prefix + ".device.log", sessionStartLine(kOld, 5) + sessionStartLine(kNew, 5));
  RecordingVisitor v;
  EXPECT_EQ(readPrefix(prefix, {}, v).chosen_sid, "22222222");
}

TEST(ReadPrefix, WithoutSessionStartReadsTheLastRecordsSid) {
  TempDir dir;
  const std::string prefix = dir.path("lost");
  writeFile(prefix + ".scope.log", note("aaaaaaaa", "a") + note("bbbbbbbb", "b1"));
  writeFile(prefix + ".system.log", note("bbbbbbbb", "b2") + "junk\n");
  RecordingVisitor v;
  const ReadResult r = readPrefix(prefix, {}, v);
  EXPECT_EQ(r.chosen_sid, "bbbbbbbb");
  EXPECT_EQ(v.notes.size(), 2u);
  EXPECT_TRUE(hasWarning(r.warnings, "", 0, "no session_start record found"))
      << testing::allWarnings(r.warnings);
  EXPECT_TRUE(hasWarning(r.warnings, prefix + ".device.log", 0, "no files for channel 'device'"));
  EXPECT_TRUE(hasWarning(r.warnings, prefix + ".system.log", 2, "not a JSON object"));
  EXPECT_EQ(r.warning_count, 3u);
}

TEST(ReadPrefix, WithoutSessionStartARequestMatchesRecordSids) {
  TempDir dir;
  const std::string prefix = dir.path("lost");
  writeFile(prefix + ".device.log",
            note("aaaaaaaa", "a") + note("bbbbbbbb", "b1") + note("bbbbcccc", "c"));
  for (const auto& [want, sid] : std::vector<std::pair<std::string, std::string>>{
           {"aa", "aaaaaaaa"}, {"aaaaaaaa-1234-5678", "aaaaaaaa"}, {"bbbb", ""}, {"zz", ""}}) {
    RecordingVisitor v;
    ReadOptions options;
    options.session = want;
    const ReadResult r = readPrefix(prefix, options, v);
    EXPECT_EQ(r.chosen_sid, sid) << want;
    EXPECT_EQ(r.any_readable, !sid.empty()) << want;
    if (sid.empty()) {
      EXPECT_TRUE(hasWarning(r.warnings, "", 0, "sids seen: aaaaaaaa, bbbbbbbb, bbbbcccc"))
          << testing::allWarnings(r.warnings);
    }
  }
}

TEST(ReadPrefix, OnlyGarbageStillReportsEveryLine) {
  TempDir dir;
  const std::string prefix = dir.path("junk");
  writeFile(prefix + ".device.log",
            "junk\n{\"type\":\"note\",\"feature\":\"f\",\"status\":\"on\"}\n");
  RecordingVisitor v;
  const ReadResult r = readPrefix(prefix, {}, v);
  EXPECT_FALSE(r.any_readable);
  EXPECT_TRUE(hasWarning(r.warnings, "", 0, "no record has a sid"));
  EXPECT_TRUE(hasWarning(r.warnings, prefix + ".device.log", 1, "not a JSON object"));
  EXPECT_TRUE(hasWarning(r.warnings, prefix + ".device.log", 2, "note: field 'sid' missing"));
}

TEST(ReadPrefix, NoFilesAtAll) {
  TempDir dir;
  RecordingVisitor v;
  const ReadResult r = readPrefix(dir.path("nothing"), {}, v);
  EXPECT_FALSE(r.found_files);
  EXPECT_FALSE(r.any_readable);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].message.find("no log files found for prefix"), std::string::npos);
}

TEST(ReadPrefix, EmptyFileIsAWarning) {
  TempDir dir;
  const std::string prefix = dir.path("e");
  writeFile(prefix + ".device.log", sessionStartLine(kNew, 1));
  writeFile(prefix + ".scope.log", "");
  writeFile(prefix + ".system.log", sessionStartLine(kNew, 1));
  RecordingVisitor v;
  const ReadResult r = readPrefix(prefix, {}, v);
  EXPECT_EQ(testing::allWarnings(r.warnings), prefix + ".scope.log: empty file\n");
}

std::string kernelAbs(int64_t start, uint64_t corr) {
  return R"({"type":"kernel_event","sid":"22222222","k":1,"stream":0,"scope":0,"dur_ns":5,"start_ns":)" +
         std::to_string(start) + R"(,"corr":)" + std::to_string(corr) + "}\n";
}
const std::string kKernelDef =
    R"j({"type":"kernel_def","sid":"22222222","k":1,"name":"k1","grid":"(1,1,1)","block":"(1,1,1)"})j"
    "\n";
std::string kernelDelta(int64_t dt) {
  return R"({"type":"kernel_event","sid":"22222222","k":1,"stream":0,"scope":0,"dur_ns":5,"dt_ns":)" +
         std::to_string(dt) +
         R"(,"dcorr":1})"
         "\n";
}

TEST(ReadPrefix, SegmentsPlainAndZstdInOrderWithDeltaChainsPerFile) {
  TempDir dir;
  const std::string p = dir.path("seg");
  writeFile(p + ".device.000001.log.zst",
            testing::zstdCompress(sessionStartLine(kNew, 1) + kKernelDef + kernelAbs(100, 1) +
                                  kernelDelta(10)));
  writeFile(p + ".device.000002.log", kernelAbs(200, 3) + kernelDelta(10));
  writeFile(p + ".device.000002.log.zst", "partial compression output");  // plain 000002 wins
  // A delta at the start of a file cannot continue the previous file's chain.
  writeFile(p + ".device.log", kernelDelta(10) + kernelAbs(300, 5) + kernelDelta(-20));
  writeFile(p + ".scope.log", sessionStartLine(kNew, 1));
  writeFile(p + ".system.log", sessionStartLine(kNew, 1));
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  std::vector<int64_t> starts;
  for (const auto& k : v.kernels) starts.push_back(k.start_ns);
  EXPECT_EQ(starts, (std::vector<int64_t>{100, 110, 200, 210, 300, 280}));
  EXPECT_EQ(v.kernels.back().correlation_id, 6u);
  EXPECT_EQ(r.files.size(), 5u);
  EXPECT_EQ(r.files[0], p + ".device.000001.log.zst");
  EXPECT_EQ(testing::allWarnings(r.warnings),
            p + ".device.log:1: kernel_event: 1 kernel events skipped until resync at line 2\n");
}

TEST(ReadPrefix, CorruptZstdNamesTheFileAndKeepsWhatWasReadBefore) {
  TempDir dir;
  const std::string p = dir.path("bad");
  const std::string zst =
      testing::zstdCompress(sessionStartLine(kNew, 1) + note("22222222", "before"));
  writeFile(p + ".device.000001.log.zst", zst + "garbage that is not a zstd frame");
  writeFile(p + ".device.log", note("22222222", "after"));
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, {}, v);
  ASSERT_EQ(v.notes.size(), 2u);
  EXPECT_EQ(v.notes[0].feature, "before");
  EXPECT_EQ(v.notes[1].feature, "after");
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.000001.log.zst", 0, "corrupt zstd data after"))
      << testing::allWarnings(r.warnings);
}

TEST(ReadPrefix, LongLinesAreSkippedWithTheLimitInTheMessage) {
  TempDir dir;
  const std::string p = dir.path("long");
  writeFile(p + ".device.log", sessionStartLine(kNew, 1) + R"({"type":"note","x":")" +
                                   std::string(1000, 'x') + "\"}\n" + note("22222222", "ok"));
  ReadOptions options;
  options.max_line_bytes = 500;
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, options, v);
  EXPECT_EQ(v.notes.size(), 1u);
  EXPECT_TRUE(hasWarning(r.warnings, p + ".device.log", 2, "line longer than 500 bytes skipped"));
}

TEST(ReadPrefix, WarningsAreCappedButCounted) {
  TempDir dir;
  const std::string p = dir.path("many");
  std::string text = sessionStartLine(kNew, 1);
  for (int i = 0; i < 50; ++i) text += "bad\n";
  writeFile(p + ".device.log", text);
  ReadOptions options;
  options.max_warnings = 10;
  RecordingVisitor v;
  const ReadResult r = readPrefix(p, options, v);
  EXPECT_EQ(r.warnings.size(), 10u);
  EXPECT_EQ(r.warning_count, 52u);  // 50 lines + two absent channels
}

TEST(ReadPrefix, VisitorExceptionsDoNotEscape) {
  struct Throwing : EventVisitor {
    void onNote(const Note&) override { throw std::runtime_error("boom"); }
  } v;
  ThreeSessions log;
  const ReadResult r = readPrefix(log.prefix, {}, v);
  EXPECT_TRUE(hasWarning(r.warnings, "", 0, "reading stopped: boom"));
}

TEST(FormatWarning, FileLineMessage) {
  EXPECT_EQ(formatWarning({"a.log", 3, "m"}), "a.log:3: m");
  EXPECT_EQ(formatWarning({"a.log", 0, "m"}), "a.log: m");
  EXPECT_EQ(formatWarning({"", 0, "m"}), "m");
}

}  // namespace
}  // namespace gpufl::log
