// The agent's parts that need no receiver: gzip, checkpoint and batch header formats, line checks,
// URL/listen/Retry-After parsing, and reading files from a saved position.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "agent/agent.hpp"
#include "agent/checkpoint.hpp"
#include "agent/durable_file.hpp"
#include "agent/file_cursor.hpp"
#include "agent/gzip.hpp"
#include "agent/line_check.hpp"
#include "agent/otlp_export.hpp"
#include "agent/sender.hpp"
#include "agent/spool.hpp"
#include "agent/token_policy.hpp"
#include "log/compressor.hpp"

namespace gpufl::agent {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gpufl_agent_test_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

void writeText(const fs::path& p, const std::string& text,
               std::ios::openmode mode = std::ios::trunc) {
  std::ofstream(p, std::ios::binary | mode) << text;
}

std::vector<std::string> readAll(FileCursor& c, std::vector<ReadStatus>* statuses = nullptr) {
  std::vector<std::string> lines;
  std::string_view text;
  for (;;) {
    ReadStatus st = c.next(&text);
    if (st == ReadStatus::End || st == ReadStatus::Error) break;
    if (statuses) statuses->push_back(st);
    if (st == ReadStatus::Line) lines.emplace_back(text);
  }
  return lines;
}

TEST(AgentGzip, RoundTripsLinesFedPiecewise) {
  GzipWriter gz;
  std::string expected;
  for (int i = 0; i < 5000; ++i) {
    std::string line =
        "{\"type\":\"kernel_event\",\"sid\":\"abcd0123\",\"n\":" + std::to_string(i) + "}\n";
    gz.append(line);
    expected += line;
  }
  EXPECT_EQ(gz.inputBytes(), expected.size());
  std::string out;
  std::string body = gz.finish();
  ASSERT_TRUE(gunzip(body, &out));
  EXPECT_EQ(out, expected);
  EXPECT_LT(body.size(), expected.size() / 5);
  // The writer starts a fresh stream after finish().
  gz.append("x\n");
  ASSERT_TRUE(gunzip(gz.finish(), &out));
  EXPECT_EQ(out, "x\n");
  EXPECT_FALSE(gunzip(body.substr(0, body.size() / 2), &out));
}

TEST(AgentCheckpoint, EncodesAndDecodesEveryField) {
  AgentState s;
  s.next_batch = 42;
  s.streams["/logs/run.device"] = StreamPos{7, FilePos{12345, 99}, 0xfeedfacecafebeefull};
  s.streams["/logs/\"odd\".scope"] = StreamPos{1, FilePos{0, 0}, 0};
  s.shipped = {"/logs/run 0a1b2c3d"};
  s.otlp_pending["/logs/run 0a1b2c3d"] = 5;
  AgentState back;
  std::string error;
  ASSERT_TRUE(decodeState(encodeState(s), &back, &error)) << error;
  EXPECT_EQ(back.next_batch, 42u);
  ASSERT_EQ(back.streams.size(), 2u);
  const StreamPos& p = back.streams.at("/logs/run.device");
  EXPECT_EQ(p.next_seg, 7u);
  EXPECT_EQ(p.pos.offset, 12345u);
  EXPECT_EQ(p.pos.lines, 99u);
  EXPECT_EQ(p.head, 0xfeedfacecafebeefull);
  EXPECT_EQ(back.shipped.front(), "/logs/run 0a1b2c3d");
  EXPECT_EQ(back.otlp_pending.at("/logs/run 0a1b2c3d"), 5u);
  EXPECT_FALSE(decodeState(
      "{\"version\":1,\"next_batch\":1,\"streams\":{\"a\":{\"next_seg\":1}},\"shipped\":[]}", &back,
      &error));
  EXPECT_NE(error.find("streams.a"), std::string::npos) << error;
  EXPECT_FALSE(decodeState("{\"version\":2}", &back, &error));
  EXPECT_NE(error.find("version"), std::string::npos);
}

TEST(AgentSpool, HeaderRoundTripAndBoundedQueue) {
  TempDir t;
  Spool spool;
  std::string error;
  ASSERT_TRUE(spool.open((t.path / "spool").string(), 100, &error)) << error;
  BatchHeader h;
  h.id = 3;
  h.key = "k1";
  h.prefix = "/l/run";
  h.channel = "device";
  h.seg = 2;
  h.first_line = 10;
  h.last_line = 20;
  h.records = 11;
  h.text_bytes = 500;
  h.created_unix_ms = 1700000000000;
  h.session_ends = {"aaaa0001"};
  h.target = BatchHeader::Target::OtlpMetrics;
  ASSERT_TRUE(spool.put(h, std::string(80, 'z'), &error)) << error;
  EXPECT_TRUE(spool.full());
  struct stat st {};
  ASSERT_EQ(::stat((t.path / "spool" / "00000000000000000003.batch").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  // A second spool opened on the same directory (a restarted agent) finds the batch.
  Spool again;
  ASSERT_TRUE(again.open((t.path / "spool").string(), 1000, &error));
  EXPECT_EQ(again.count(), 1u);
  BatchHeader back;
  std::string body;
  ASSERT_TRUE(again.oldest(&back, &body, 0, &error)) << error;
  EXPECT_EQ(back.key, "k1");
  EXPECT_EQ(back.first_line, 10u);
  EXPECT_EQ(back.last_line, 20u);
  EXPECT_EQ(back.session_ends, std::vector<std::string>{"aaaa0001"});
  EXPECT_EQ(back.target, BatchHeader::Target::OtlpMetrics);
  EXPECT_EQ(body, std::string(80, 'z'));
  again.remove(back.id);
  EXPECT_EQ(again.count(), 0u);
  EXPECT_EQ(again.bytes(), 0u);
}

TEST(AgentLineCheck, AcceptsRecordsRejectsDamage) {
  LineChecker c;
  auto check = [&](std::string s) {
    s.append(64, '\0');
    return c.check(std::string_view(s.data(), s.size() - 64));
  };
  EXPECT_TRUE(check(R"({"type":"kernel_event","sid":"abcd0123","k":1})").ok);
  LineInfo end = check(R"({"type":"session_end","sid":"abcd0123","kernels":3})");
  EXPECT_TRUE(end.ok && end.session_end);
  EXPECT_EQ(end.sid, "abcd0123");
  EXPECT_FALSE(check(R"({"type":"kernel_event","sid":"abcd0123","k":)").ok);  // cut short
  EXPECT_FALSE(check(R"({"sid":"abcd0123"})").ok);
  EXPECT_FALSE(check(R"({"type":"x"})").ok);
  EXPECT_FALSE(check(R"([1,2])").ok);
  EXPECT_FALSE(check("garbage").ok);
}

TEST(AgentParse, UrlListenRetryAfterAndOptions) {
  std::string origin, path;
  ASSERT_TRUE(splitUrl("https://logs.example:8443/v1/ingest", &origin, &path));
  EXPECT_EQ(origin, "https://logs.example:8443");
  EXPECT_EQ(path, "/v1/ingest");
  ASSERT_TRUE(splitUrl("http://h", &origin, &path));
  EXPECT_EQ(path, "/");
  EXPECT_FALSE(splitUrl("ftp://h/x", &origin, &path));
  std::string host;
  int port = 0;
  ASSERT_TRUE(parseListen("127.0.0.1:9465", &host, &port));
  EXPECT_EQ(port, 9465);
  ASSERT_TRUE(parseListen("[::1]:0", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_FALSE(parseListen("9465", &host, &port));
  EXPECT_FALSE(parseListen("h:99999", &host, &port));
  EXPECT_TRUE(isLoopbackHost("127.3.2.1"));
  EXPECT_TRUE(isLoopbackHost("localhost"));
  EXPECT_FALSE(isLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(isLoopbackHost("10.0.0.1"));
  EXPECT_EQ(parseRetryAfter("7", 0), 7);
  EXPECT_EQ(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 - 10), 10);
  EXPECT_EQ(parseRetryAfter("soon", 0), -1);
  AgentOptions o;
  o.inputs = {"/tmp"};
  o.to = "http://127.0.0.1:1/x";
  o.state_dir = "/tmp/s";
  EXPECT_EQ(validateOptions(o), "");
  o.listen = "0.0.0.0:9465";
  EXPECT_NE(validateOptions(o).find("not a loopback address"), std::string::npos);
  o.token = "t";
  EXPECT_EQ(validateOptions(o), "");
  o.to = "localhost:80";
  EXPECT_NE(validateOptions(o).find("--to"), std::string::npos);
}

// The token crosses the network only over TLS, unless --allow-insecure; plain http:// to loopback
// stays on the host.
TEST(AgentTokenPolicy, RefusesATokenOverPlainHttpBeyondLoopback) {
  AgentOptions o;
  o.inputs = {"/tmp"};
  o.state_dir = "/tmp/s";
  o.token = "t";
  for (const char* ok : {"https://logs.example/x", "http://127.0.0.1:1/x", "http://localhost/x",
                         "http://[::1]:4318", "http://user@127.0.0.2:9/x"}) {
    o.to = ok;
    EXPECT_EQ(validateOptions(o), "") << ok;
  }
  for (const char* clear : {"http://logs.example/x", "http://10.0.0.1:80/x", "http://[::2]/x",
                            "http://127.0.0.1@evil.example/x"}) {
    o.to = clear;
    const std::string why = validateOptions(o);
    EXPECT_NE(why.find("refusing to send the bearer token in clear: --to " + std::string(clear)),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("--allow-insecure"), std::string::npos);
  }
  o.to = "https://logs.example/x";
  o.otlp = "http://collector:4318";
  EXPECT_NE(validateOptions(o).find("--otlp http://collector:4318"), std::string::npos);
  o.allow_insecure = true;
  EXPECT_EQ(validateOptions(o), "");
  const std::vector<std::string> notes = tokenTransportNotes(o);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "the bearer token goes to https://logs.example/x over TLS");
  EXPECT_EQ(notes[1].rfind("warning: the bearer token goes to http://collector:4318 in clear", 0),
            0u);
  o.token.clear();
  o.allow_insecure = false;
  EXPECT_EQ(validateOptions(o), "");  // no token: nothing to protect
  EXPECT_TRUE(tokenTransportNotes(o).empty());
  EXPECT_EQ(urlHost("http://[::1]:9/x"), "::1");
  EXPECT_EQ(urlHost("https://a:b@h.example:1?q"), "h.example");
}

TEST(AgentFileCursor, PlainLiveFileResumesAtOffsetAndWaitsForWholeLines) {
  TempDir t;
  fs::path p = t.path / "run.device.log";
  writeText(p, "{\"a\":1}\n{\"a\":2}\n{\"a\":");
  std::string error;
  auto c = FileCursor::open(p, {}, false, 1 << 20, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(readAll(*c), (std::vector<std::string>{"{\"a\":1}", "{\"a\":2}"}));
  FilePos pos = c->pos();
  EXPECT_EQ(pos.offset, 16u);
  EXPECT_EQ(pos.lines, 2u);
  writeText(p, "3}\n", std::ios::app);
  auto again = FileCursor::open(p, pos, false, 1 << 20, &error);
  EXPECT_EQ(readAll(*again), (std::vector<std::string>{"{\"a\":3}"}));
  EXPECT_EQ(again->pos().lines, 3u);
}

TEST(AgentFileCursor, ClosedFileTornLineAndTooLongLineAreSkipped) {
  TempDir t;
  fs::path p = t.path / "run.device.000001.log";
  writeText(p, "a\n" + std::string(300, 'x') + "\nb\ntorn");
  std::string error;
  auto c = FileCursor::open(p, {}, true, 100, &error);
  ASSERT_TRUE(c) << error;
  std::vector<ReadStatus> st;
  EXPECT_EQ(readAll(*c, &st), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(st, (std::vector<ReadStatus>{ReadStatus::Line, ReadStatus::TooLong, ReadStatus::Line,
                                         ReadStatus::Torn}));
  EXPECT_EQ(c->pos().lines, 4u);
  EXPECT_EQ(c->pos().offset, fs::file_size(p));
}

TEST(AgentFileCursor, ZstdSegmentResumesByLineAndMatchesPlainIdentity) {
  TempDir t;
  fs::path plain = t.path / "run.scope.000001.log";
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{\"n\":" + std::to_string(i) + "}\n";
  writeText(plain, text);
  uint64_t head = firstLineHash(plain);
  std::string error;
  auto c = FileCursor::open(plain, {}, true, 1 << 20, &error);
  std::string_view line;
  for (int i = 0; i < 600; ++i) ASSERT_EQ(c->next(&line), ReadStatus::Line);
  FilePos pos = c->pos();
  fs::path zst = plain.string() + ".zst";
  ASSERT_EQ(log::compressSegment(plain, zst, 3, &error), log::CompressResult::kDone) << error;
  EXPECT_EQ(firstLineHash(zst), head);
  auto z = FileCursor::open(zst, pos, true, 1 << 20, &error);
  ASSERT_TRUE(z) << error;
  std::vector<std::string> rest = readAll(*z);
  ASSERT_EQ(rest.size(), 400u);
  EXPECT_EQ(rest.front(), "{\"n\":600}");
  EXPECT_EQ(z->pos().offset, text.size());
}

TEST(AgentFileCursor, RefusesSymbolicLinks) {
  TempDir t;
  writeText(t.path / "real.log", "x\n");
  fs::create_symlink(t.path / "real.log", t.path / "run.device.log");
  std::string error;
  EXPECT_FALSE(FileCursor::open(t.path / "run.device.log", {}, false, 100, &error));
  EXPECT_NE(error.find("run.device.log"), std::string::npos);
}

// The agent's files are 0640 at most; a stricter umask (077) takes the group's bits away too.
TEST(AgentDurableFile, ModeIs0640LessTheUmask) {
  TempDir t;
  std::string error;
  for (mode_t mask : {mode_t(022), mode_t(077)}) {
    const mode_t old = ::umask(mask);
    const bool ok = writeFileAtomic((t.path / "state.json").string(), "{}", &error);
    ::umask(old);
    ASSERT_TRUE(ok) << error;
    struct stat st {};
    ASSERT_EQ(::stat((t.path / "state.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u & ~mask) << "umask 0" << std::oct << mask;
  }
}

// A stop abandons the OTLP export of a long session within a few thousand records (the session
// stays pending and is exported again by the next run), rather than holding a SIGTERM until it is
// read.
TEST(AgentOtlp, AStopAbandonsTheExportOfALongSession) {
  const std::string prefix =
      std::string(GPUFL_TEST_DATA_DIR) + "/h200/pytorch_blocks";  // 9,934 kernels
  std::atomic<bool> stop{true};
  int emitted = 0;
  const auto emit = [&](OtlpRequest&&) { return ++emitted > 0; };
  OtlpExportResult r = exportSessionOtlp(prefix, "", 2000, &stop, emit);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "export abandoned");
  EXPECT_EQ(emitted, 0);
  stop = false;
  r = exportSessionOtlp(prefix, "", 2000, &stop, emit);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.spans, 9934u);
  EXPECT_GT(emitted, 0);
}

}  // namespace
}  // namespace gpufl::agent
