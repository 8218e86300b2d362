// The round trip over every field of every record type, driven by the field tables
// (core/record_schema.hpp): each field gets a distinct value that is not its default, the record is
// written by the NDJSON writer, read back by the record parser, and every field compared. A field
// the writer writes but the parser does not read comes back as its default and fails here, naming
// the record and the key; a field added to a struct but not to its table fails to compile
// (record_schema.hpp's static_asserts).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "core/record_schema.hpp"
#include "log/decode_test_util.hpp"
#include "log/ndjson_format.hpp"

namespace gpufl::log {
namespace {

using schema::FieldInfo, schema::Kind, schema::Schema;

constexpr const char* kSid = "abcd1234";

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsVector : std::false_type {};
template <typename T>
struct IsVector<std::vector<T>> : std::true_type {};
template <typename T>
concept Described = requires {
  Schema<T>::fields;
};
template <typename T>
concept OptionalObject = IsOptional<T>::value && Described<typename T::value_type>;
template <typename T>
concept ObjectList = IsVector<T>::value && Described<typename T::value_type>;

// Fills `v` with a value that differs from its default and from every other field's (seed counts
// up).
template <typename T>
void fill(T& v, const FieldInfo& f, uint64_t& seed);

template <typename T>
void fillAll(T& e, uint64_t& seed) {
  Schema<T>::forEach(e, [&](const FieldInfo& f, auto& member) { fill(member, f, seed); });
}

template <typename T>
void fill(T& v, const FieldInfo& f, uint64_t& seed) {
  const uint64_t n = seed++;
  if constexpr (Described<T>) {
    fillAll(v, seed);
  } else if constexpr (IsOptional<T>::value) {
    fill(v.emplace(), f, --seed);
  } else if constexpr (std::is_same_v<T, bool>) {
    v = true;
  } else if constexpr (std::is_enum_v<T>) {
    v = static_cast<T>(2);  // every enum of the format has at least three values; 0 is the default
  } else if constexpr (std::is_floating_point_v<T>) {
    v = static_cast<T>(n) + 0.25;
  } else if constexpr (std::is_integral_v<T>) {
    v = static_cast<T>(n);
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = std::string(f.key) + "-" + std::to_string(n) +
        " \"q\" \\ \xc3\xa9";  // escapes and UTF-8 too
  } else if constexpr (std::is_same_v<T, Dim3>) {
    v = Dim3{static_cast<uint32_t>(n), static_cast<uint32_t>(n + 1), static_cast<uint32_t>(n + 2)};
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    v = {std::string(f.key) + "-a" + std::to_string(n), std::string(f.key) + "-b"};
  } else if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) {
    v = {{"number", std::to_string(n)},
         {"text", "\"t" + std::to_string(n) + "\""},
         {"list", "[1,2]"}};
  } else if constexpr (IsVector<T>::value) {  // of described objects
    v.resize(2);
    for (auto& item : v) fill(item, f, seed);
  } else {  // a map of numbers
    v = {{"a", static_cast<typename T::mapped_type>(n)},
         {"b", static_cast<typename T::mapped_type>(n + 1)}};
  }
}

// Compares field by field; a difference names the record and the key.
template <typename T>
void expectSame(const T& want, const T& got, const std::string& where);

template <typename T>
void expectAll(const T& want, const T& got, const std::string& where) {
  Schema<T>::forEachPair(want, got, [&](const FieldInfo& f, const auto& w, const auto& g) {
    expectSame(w, g, where + "." + std::string(f.key) + " (" + std::string(f.member) + ")");
  });
}

template <typename T>
void expectSame(const T& want, const T& got, const std::string& where) {
  if constexpr (Described<T>) {
    expectAll(want, got, where);
  } else if constexpr (OptionalObject<T>) {
    ASSERT_EQ(want.has_value(), got.has_value()) << where << ": written, but not read back";
    if (want) expectAll(*want, *got, where);
  } else if constexpr (ObjectList<T>) {
    ASSERT_EQ(want.size(), got.size()) << where;
    for (size_t i = 0; i < want.size(); ++i)
      expectSame(want[i], got[i], where + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_TRUE(want == got) << where
                             << ": written, but read back differently (a field the parser skips?)";
  }
}

// A record of type T with every field set.
template <typename T>
T filled(uint64_t seed) {
  T e{};
  e.sid = kSid;
  fillAll(e, seed);
  if constexpr (requires { e.end_ns, e.start_ns; })
    e.end_ns = e.start_ns + 1000;  // durations are >= 0
  return e;
}

void write(std::string& out, const SessionStart& e) {
  formatSessionStart(out, e, true);
}
void write(std::string& out, const SessionEnd& e) {
  formatRecord(out, e);
}
void write(std::string& out, const DeviceEvent& e) {
  formatRecord(out, e);
}
void write(std::string& out, const Note& e) {
  formatRecord(out, e);
}
void write(std::string& out, const KernelDef& e) {
  formatRecord(out, e);
}
void write(std::string& out, const KernelEvent& e) {
  formatKernelEventAbsolute(out, e);
}
void write(std::string& out, const MemcpyEvent& e) {
  formatRecord(out, e);
}
void write(std::string& out, const SyncEvent& e) {
  formatRecord(out, e);
}
void write(std::string& out, const MemoryEvent& e) {
  formatRecord(out, e);
}
void write(std::string& out, const StackDef& e) {
  formatRecord(out, e);
}
void write(std::string& out, const ScopePath& e) {
  formatRecord(out, e);
}
void write(std::string& out, const ScopeBegin& e) {
  formatRecord(out, e);
}
void write(std::string& out, const ScopeEnd& e) {
  formatRecord(out, e);
}
void write(std::string& out, const GpuSample& e) {
  formatRecord(out, e);
}
void write(std::string& out, const HostSample& e) {
  formatRecord(out, e);
}
void write(std::string& out, const SassMetric& e) {
  formatRecord(out, e);
}
void write(std::string& out, const PcSample& e) {
  formatRecord(out, e);
}
void write(std::string& out, const RangeCounters& e) {
  formatRecord(out, e);
}
void write(std::string& out, const BenchmarkResult& e) {
  formatRecord(out, e);
}
void write(std::string& out, const Incident& e) {
  formatRecord(out, e);
}
void write(std::string& out, const Health& e) {
  formatRecord(out, e);
}

using testing::RecordingVisitor;
const std::vector<SessionStart>& got(const RecordingVisitor& v, const SessionStart*) {
  return v.starts;
}
const std::vector<SessionEnd>& got(const RecordingVisitor& v, const SessionEnd*) {
  return v.ends;
}
const std::vector<DeviceEvent>& got(const RecordingVisitor& v, const DeviceEvent*) {
  return v.devices;
}
const std::vector<Note>& got(const RecordingVisitor& v, const Note*) {
  return v.notes;
}
const std::vector<KernelDef>& got(const RecordingVisitor& v, const KernelDef*) {
  return v.defs;
}
const std::vector<KernelEvent>& got(const RecordingVisitor& v, const KernelEvent*) {
  return v.kernels;
}
const std::vector<MemcpyEvent>& got(const RecordingVisitor& v, const MemcpyEvent*) {
  return v.copies;
}
const std::vector<SyncEvent>& got(const RecordingVisitor& v, const SyncEvent*) {
  return v.syncs;
}
const std::vector<MemoryEvent>& got(const RecordingVisitor& v, const MemoryEvent*) {
  return v.memory;
}
const std::vector<StackDef>& got(const RecordingVisitor& v, const StackDef*) {
  return v.stacks;
}
const std::vector<ScopePath>& got(const RecordingVisitor& v, const ScopePath*) {
  return v.paths;
}
const std::vector<ScopeBegin>& got(const RecordingVisitor& v, const ScopeBegin*) {
  return v.begins;
}
const std::vector<ScopeEnd>& got(const RecordingVisitor& v, const ScopeEnd*) {
  return v.scope_ends;
}
const std::vector<GpuSample>& got(const RecordingVisitor& v, const GpuSample*) {
  return v.gpu_samples;
}
const std::vector<HostSample>& got(const RecordingVisitor& v, const HostSample*) {
  return v.host_samples;
}
const std::vector<SassMetric>& got(const RecordingVisitor& v, const SassMetric*) {
  return v.sass;
}
const std::vector<PcSample>& got(const RecordingVisitor& v, const PcSample*) {
  return v.pcs;
}
const std::vector<RangeCounters>& got(const RecordingVisitor& v, const RangeCounters*) {
  return v.ranges;
}
const std::vector<Incident>& got(const RecordingVisitor& v, const Incident*) {
  return v.incidents;
}
const std::vector<BenchmarkResult>& got(const RecordingVisitor& v, const BenchmarkResult*) {
  return v.benchmarks;
}
const std::vector<Health>& got(const RecordingVisitor& v, const Health*) {
  return v.health;
}

// Writes `events`, reads them back, and compares every field of each.
template <typename T>
void roundTrip(const std::vector<T>& events, const std::string& text, const std::string& what) {
  SCOPED_TRACE(what + ": " + text);
  const auto d = testing::decode(text, kSid);
  EXPECT_EQ(d->all(), "");
  const auto& back = got(d->v, static_cast<const T*>(nullptr));
  ASSERT_EQ(back.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(back[i].sid, events[i].sid) << what << ".sid";
    expectSame(events[i], back[i], what);
  }
}

// Every key of the table is on the line (nested objects are checked through their own keys).
template <typename T>
void expectKeysWritten(const T& e, const std::string& line,
                       const std::vector<std::string_view>& not_written) {
  Schema<T>::forEach(e, [&](const FieldInfo& f, const auto& member) {
    using M = std::remove_cvref_t<decltype(member)>;
    if constexpr (Described<M>) {
      return expectKeysWritten(member, line, {});
    } else if constexpr (OptionalObject<M>) {
      return expectKeysWritten(*member, line, {});
    } else if constexpr (ObjectList<M>) {
      return expectKeysWritten(member.front(), line, {});
    }
    if (std::find(not_written.begin(), not_written.end(), f.key) != not_written.end()) return;
    EXPECT_NE(line.find("\"" + std::string(f.key) + "\":"), std::string::npos)
        << Schema<T>::type << ": key '" << f.key << "' not written: " << line;
  });
}

TEST(SchemaRoundTrip, EveryFieldOfEveryRecordType) {
  int types = 0;
  schema::forEachRecordType([&]<typename T>() {
    ++types;
    const std::string what(Schema<T>::type);
    T e = filled<T>(100);
    if constexpr (std::is_same_v<T, MemcpyEvent>)
      e.is_memset = false;  // memsets: MemsetHasNoCopyKind
    std::string line;
    write(line, e);
    std::vector<std::string_view> not_written;
    if constexpr (std::is_same_v<T, MemcpyEvent>) not_written = {"type"};  // the record type itself
    expectKeysWritten(e, line, not_written);
    roundTrip(std::vector<T>{e}, line, what);
  });
  EXPECT_EQ(types, 21);
}

TEST(SchemaRoundTrip, MemsetHasNoCopyKind) {
  MemcpyEvent e = filled<MemcpyEvent>(100);
  e.is_memset = true;
  std::string line;
  write(line, e);
  EXPECT_EQ(line.find("\"kind\""), std::string::npos) << line;
  e.kind = CopyKind::Unknown;  // not written for a memset: reads back as unknown
  roundTrip(std::vector<MemcpyEvent>{e}, line, "memset_event");
}

// The compact encoding: an absolute record, then differences (also negative ones), through the
// chain.
TEST(SchemaRoundTrip, KernelEventsThroughTheDeltaEncoding) {
  std::vector<KernelEvent> events = {filled<KernelEvent>(100), filled<KernelEvent>(200),
                                     filled<KernelEvent>(50)};
  KernelDeltaEncoder delta;
  std::string text;
  for (const KernelEvent& e : events) formatKernelEvent(text, e, delta);
  delta.appendChainEnds(text);
  roundTrip(events, text, "kernel_event (delta)");
}

}  // namespace
}  // namespace gpufl::log
