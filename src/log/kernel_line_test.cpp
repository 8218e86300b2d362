// The writer-layout kernel_event scanner (kernel_line.hpp): what it accepts and refuses, and, over
// writer output damaged at random, that a decoder using it delivers exactly the events and warnings
// of one that reads every line with simdjson.
#include "log/kernel_line.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "log/line_source.hpp"
#include "log/ndjson_format.hpp"
#include "log/reader_test_util.hpp"
#include "log/record_parser.hpp"

namespace gpufl::log {
namespace {

using detail::KernelFields;
using detail::scanWriterKernelLine;

struct Scanned {
  bool ok = false;
  std::string sid;  // a copy: the scanner's view points into the line
  KernelFields f;
  KernelEvent ev;
};

Scanned scan(const std::string& line) {
  Scanned s;
  std::string_view sid;
  s.ok = scanWriterKernelLine(line, sid, s.f, s.ev);
  s.sid = sid;
  return s;
}

TEST(KernelLine, ReadsEveryFieldOfTheWritersLayout) {
  const Scanned s =
      scan(R"({"type":"kernel_event","sid":"5eed0001","dur_ns":90001,"k":4294967295,"stream":7,)"
           R"("scope":3,"stack":9,"graph":2,"instr":true,"dcorr":-2,"dt_ns":-1500,"corr":18446744)"
           R"(,"start_ns":-999999999999999999,"end_ns":0})");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.sid, "5eed0001");
  EXPECT_EQ(s.f.dur, 90001);
  EXPECT_TRUE(s.f.k && s.f.have_dur && s.f.have_dt && s.f.have_dcorr && s.f.have_corr &&
              s.f.have_start && s.f.have_end);
  EXPECT_EQ(s.ev.def_id, 4294967295u);
  EXPECT_EQ(s.ev.stream, 7u);
  EXPECT_EQ(s.ev.scope_path, 3u);
  EXPECT_EQ(s.ev.stack_id, 9u);
  EXPECT_EQ(s.ev.graph_id, 2u);
  EXPECT_TRUE(s.ev.instrumented);
  EXPECT_EQ(s.f.dcorr, -2);
  EXPECT_EQ(s.f.dt, -1500);
  EXPECT_EQ(s.f.corr, 18446744u);
  EXPECT_EQ(s.f.start, -999999999999999999);
  EXPECT_EQ(s.f.end, 0);
}

// Every field the writer can give a kernel_event is set here: a field added to the writer without
// being added to the scanner sends every kernel line to the slow path, and fails this test.
TEST(KernelLine, ReadsWhatTheWriterFormats) {
  KernelDeltaEncoder delta;
  KernelEvent e;
  e.sid = "abcd1234";
  e.def_id = 12;
  e.stream = 3;
  e.scope_path = 4;
  e.stack_id = 5;
  e.graph_id = 6;
  e.start_ns = 5'000'000'000'000;
  e.end_ns = e.start_ns + 777;
  e.correlation_id = 100;
  std::string text;
  formatKernelEvent(text, e, delta);  // absolute
  e.start_ns += 40;
  e.end_ns = e.start_ns + 1;
  e.correlation_id = 99;
  e.instrumented = true;
  formatKernelEvent(text, e, delta);  // differences
  const size_t nl = text.find('\n');
  const Scanned first = scan(text.substr(0, nl)),
                second = scan(text.substr(nl + 1, text.size() - nl - 2));
  ASSERT_TRUE(first.ok) << text;
  ASSERT_TRUE(second.ok) << text;
  EXPECT_EQ(first.f.start, 5'000'000'000'000);
  EXPECT_EQ(first.f.corr, 100u);
  EXPECT_EQ(first.f.dur, 777);
  EXPECT_EQ(first.ev.def_id, 12u);
  EXPECT_EQ(second.f.dt, 40);
  EXPECT_EQ(second.f.dcorr, -1);
  EXPECT_EQ(second.f.dur, 1);
  EXPECT_TRUE(second.ev.instrumented);
  EXPECT_EQ(second.ev.scope_path, 4u);
  EXPECT_EQ(second.ev.stack_id, 5u);
  EXPECT_EQ(second.ev.graph_id, 6u);
  // What `gpufl cat` prints: absolute times and an end.
  std::string cat;
  formatKernelEventAbsolute(cat, e);
  const Scanned absolute = scan(cat.substr(0, cat.size() - 1));
  ASSERT_TRUE(absolute.ok) << cat;
  EXPECT_EQ(absolute.f.start, e.start_ns);
  EXPECT_EQ(absolute.f.corr, e.correlation_id);
  EXPECT_TRUE(absolute.f.have_dur || absolute.f.have_end);
}

// Every digit count, in the middle of a line (read eight bytes at a time) and at its end (byte by
// byte), against the decimal text it came from.
TEST(KernelLine, ReadsNumbersOfEveryLength) {
  std::mt19937_64 gen(3);
  for (int digits = 1; digits <= 18; ++digits) {
    for (int i = 0; i < 50; ++i) {
      uint64_t v = gen() % 9 + 1;
      for (int d = 1; d < digits; ++d) v = v * 10 + gen() % 10;
      if (i == 0) v = digits == 1 ? 0 : v;  // zero itself
      const int64_t dt = i % 2 ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
      if (dt == 0 && i % 2) continue;  // "-0" is the full parser's
      const std::string n = std::to_string(v), sdt = std::to_string(dt);
      const Scanned mid = scan(R"({"type":"kernel_event","sid":"s","dt_ns":)" + sdt +
                               R"(,"corr":)" + n + R"(,"k":1})");
      const Scanned last =
          scan(R"({"type":"kernel_event","sid":"s","dt_ns":)" + sdt + R"(,"corr":)" + n + "}");
      ASSERT_TRUE(mid.ok && last.ok) << n;
      EXPECT_EQ(mid.f.dt, dt) << sdt;
      EXPECT_EQ(mid.f.corr, v) << n;
      EXPECT_EQ(last.f.dt, dt) << sdt;
      EXPECT_EQ(last.f.corr, v) << n;
    }
  }
}

// Lines the full parser must judge: each differs from a good line by one detail.
TEST(KernelLine, LeavesEverythingElseToTheFullParser) {
  const std::string head = R"({"type":"kernel_event","sid":"s1","k":1,"dur_ns":5,"dt_ns":1,)";
  ASSERT_TRUE(scan(head + R"("dcorr":1})").ok);
  for (const char* tail : {
           R"("dcorr":1} )",                       // anything after the object
           R"("dcorr":1)",                         // no closing brace
           R"("dcorr": 1})",                       // whitespace
           R"("dcorr":1.0})",                      // a float
           R"("dcorr":1e3})",                      // an exponent
           R"("dcorr":01})",                       // a leading zero
           R"("dcorr":-0})",                       // minus zero
           R"("dcorr":-})",                        // a sign alone
           R"("dcorr":1234567890123456789})",      // 19 digits
           R"("dcorr":null})",                     // null (absent to the full parser)
           R"("dcorr":"1"})",                      // a string
           R"("dcorr":1,"k":2})",                  // a repeated key
           R"("dcorr":1,"type":"kernel_event"})",  // a repeated type
           R"("dcorr":1,"sid":"s1"})",             // a repeated sid
           R"("dcorr":1,"extra":1})",              // an unknown key
           R"("dcorrx":1})",                       // a key that starts like a known one
           R"("dcorr":1,})",                       // a trailing comma
           R"("dcorr":1}})",                       // two closing braces
           R"("dcorr":1,"instr":tru})",            // a damaged literal
           R"("dcorr":1,"instr":1})",              // a number for a boolean
           R"("dcorr":1,"stream":4294967296})",    // past uint32
           R"("dcorr":1,"stream":-1})",            // negative unsigned
           R"("dcorr":1,"corr":-5})",              // negative unsigned 64-bit
       })
    EXPECT_FALSE(scan(head + tail).ok) << tail;
  for (const std::string& line : {
           std::string(
               R"({"type":"kernel_event","sid":"s\u0031","k":1,"dur_ns":5,"dt_ns":1,"dcorr":1})"),
           std::string(
               R"({"type":"kernel_event","sid":"s 1","k":1,"dur_ns":5,"dt_ns":1,"dcorr":1})"),
           std::string(
               R"({"sid":"s1","type":"kernel_event","k":1,"dur_ns":5,"dt_ns":1,"dcorr":1})"),
           std::string(
               R"({ "type":"kernel_event","sid":"s1","k":1,"dur_ns":5,"dt_ns":1,"dcorr":1})"),
           std::string(R"({"type":"kernel_events","sid":"s1","k":1})"),
           std::string(R"({"type":"kernel_event","sid":"s1})"),
           std::string(R"({"type":"kernel_event","sid":"s1)"),
       })
    EXPECT_FALSE(scan(line).ok) << line;
}

// --- the decoder with and without the scanner, on damaged writer output ---

std::mt19937_64 rng(7);

uint64_t below(uint64_t n) {
  return rng() % n;
}

// A device channel as the writer writes it: session_start, kernels (absolute every 1024, and
// whenever a segment starts), a kernel_chain at the end; some of another session.
std::vector<std::string> writerLines(size_t kernels) {
  std::vector<std::string> lines;
  std::string text;
  SessionStart start;
  start.sid = "abcd1234";
  start.session_id = "abcd1234-0000-4000-8000-000000000001";
  formatRecord(text, start);
  KernelDeltaEncoder delta;
  KernelEvent e;
  e.start_ns = 1'000'000;
  for (size_t i = 0; i < kernels; ++i) {
    e.sid = below(10) == 0 ? "ffff0000" : "abcd1234";
    e.def_id = static_cast<uint32_t>(1 + below(5));
    e.stream = static_cast<uint32_t>(below(3));
    e.scope_path = static_cast<uint32_t>(below(4));
    e.stack_id = below(4) == 0 ? 3 : 0;
    e.graph_id = below(8) == 0 ? 2 : 0;
    e.instrumented = below(8) == 0;
    e.start_ns += static_cast<int64_t>(below(5000)) - 1000;
    e.end_ns = e.start_ns + static_cast<int64_t>(below(100000));
    e.correlation_id += 1 + below(3);
    if (i == kernels / 2) delta.reset();
    formatKernelEvent(text, e, delta);
  }
  delta.appendChainEnds(text);
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
    lines.push_back(text.substr(from, nl - from));
  return lines;
}

// One random change to a line: a byte replaced, removed or inserted (drawn from what JSON is made
// of), a field repeated or cut, digits lengthened.
void damage(std::string& line) {
  static const std::string kBytes = "{}[]\",:-+.eE0123456789 \t\\tfalsenu_kxzA\x7f\x80";
  // A quarter of the changes at the end of the line, where the object closes.
  const size_t at = below(4) == 0 ? line.size() - below(2) : below(line.size() + 1);
  const char c = kBytes[below(kBytes.size())];
  switch (below(6)) {
    case 0:
      if (at < line.size()) line[at] = c;
      break;
    case 1:
      if (at < line.size()) line.erase(at, 1);
      break;
    case 2:
      line.insert(at, 1, c);
      break;
    case 3: {  // a field again, at the end
      const size_t comma = line.rfind(',', at);
      if (comma != std::string::npos && comma > 30)
        line.insert(line.size() - 1,
                    line.substr(comma, line.find_first_of(",}", comma + 1) - comma));
      break;
    }
    case 4:
      line.resize(at);
      break;
    case 5: {  // a number made longer (range checks) or given a leading zero
      const size_t digit = line.find_first_of("0123456789", at);
      if (digit != std::string::npos)
        line.insert(digit, below(2) == 0 ? std::string("0") : std::string(1 + below(20), '9'));
      break;
    }
  }
}

struct Outcome {
  std::vector<std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint64_t, int64_t, int64_t,
                         uint32_t, uint32_t, bool>>
      kernels;
  std::vector<std::string> warnings;
  uint64_t delivered = 0, fast = 0;
};

Outcome decodeLines(const std::vector<std::string>& lines, bool fast, const std::string& sid,
                    const std::string& session_id) {
  std::string text;
  for (const auto& l : lines) text += l + '\n';
  testing::RecordingVisitor v;
  WarningList warnings(100000);
  RecordDecoder decoder(sid, v, warnings);
  decoder.useWriterFastPath(fast);
  if (!session_id.empty()) decoder.separateBySessionId(session_id);
  auto source = LineSource::fromMemory(text, LineSource::Format::Plain, kDefaultMaxLineBytes);
  decoder.beginFile("t.device.log");
  Line line;
  while (source->next(line)) decoder.decodeLine(line.text, line.number, line.terminated);
  decoder.endFile();
  Outcome out;
  for (const KernelEvent& k : v.kernels)
    out.kernels.emplace_back(k.sid, k.def_id, k.stream, k.scope_path, k.correlation_id, k.start_ns,
                             k.end_ns, k.stack_id, k.graph_id, k.instrumented);
  for (const ReadWarning& w : warnings.kept())
    out.warnings.push_back(w.file + ":" + std::to_string(w.line) + ": " + w.message);
  out.delivered = decoder.delivered();
  out.fast = decoder.fastPathLines();
  return out;
}

TEST(KernelLine, DecoderGivesTheSameEventsAndWarningsWithAndWithoutTheScanner) {
  const std::vector<std::string> clean = writerLines(1200);
  // Undamaged: the scanner reads every kernel line.
  const Outcome base = decodeLines(clean, true, "abcd1234", "");
  size_t kernel_lines = 0;
  for (const auto& l : clean) kernel_lines += l.starts_with(R"({"type":"kernel_event")");
  EXPECT_EQ(base.fast, kernel_lines);
  EXPECT_EQ(kernel_lines, 1200u);
  EXPECT_TRUE(base.warnings.empty());
  uint64_t accepted_damaged = 0, rounds = 0;
  for (int round = 0; round < 150; ++round) {
    std::vector<std::string> lines = clean;
    std::vector<size_t> damaged;
    for (uint64_t n = 1 + below(4); n > 0; --n) {
      const size_t i = 1 + below(lines.size() - 1);
      damage(lines[i]);
      damaged.push_back(i);
    }
    // Every line gets the sid filter; every fourth round separates sessions sharing the sid.
    const std::string session_id = round % 4 == 3 ? "abcd1234-0000-4000-8000-000000000001" : "";
    const std::string sid = round % 5 == 4 ? "" : "abcd1234";
    const Outcome slow = decodeLines(lines, false, sid, session_id);
    const Outcome fast = decodeLines(lines, true, sid, session_id);
    ASSERT_EQ(slow.fast, 0u);
    ASSERT_EQ(fast.kernels, slow.kernels) << "round " << round;
    ASSERT_EQ(fast.warnings, slow.warnings) << "round " << round;
    ASSERT_EQ(fast.delivered, slow.delivered);
    for (size_t i : damaged) accepted_damaged += scan(lines[i]).ok;
    ++rounds;
  }
  // Some damage leaves a line the scanner reads (another digit), most does not: both paths ran.
  EXPECT_GT(accepted_damaged, 10u);
  EXPECT_EQ(rounds, 150u);
}

}  // namespace
}  // namespace gpufl::log
