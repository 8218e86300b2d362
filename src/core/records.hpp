// Hot-path records: what application threads write into their per-thread buffer
// (thread_buffer.hpp). Fixed size, trivially copyable, no pointers to memory the writer thread
// might outlive. The writer thread turns them into events (events.hpp): scope records itself, other
// kinds by handing them to the session's collectors.
#pragma once

#include <cstdint>
#include <type_traits>

namespace gpufl::core {

// Where a record comes from, for drop accounting (session_end.dropped uses these names).
enum class Source : uint8_t { Scope = 0, Launch = 1, Other = 2 };
inline constexpr int kSourceCount = 3;
const char* sourceName(Source s) noexcept;

enum class RecordKind : uint16_t {
  None = 0,
  ScopeBegin = 1,  // id, path, name, tag, depth, ts_ns
  ScopeEnd = 2,    // id, path, ts_ns
  // Kinds >= kFirstBackendKind are defined by a backend (e.g. the CUDA launch callback) and are
  // routed to the session's collectors (Collector::onRecord); the core never interprets them.
  kFirstBackendKind = 16,
};

// 64 bytes: one cache line per record.
struct alignas(64) Record {
  RecordKind kind = RecordKind::None;
  Source source = Source::Other;
  uint8_t flags = 0;
  uint32_t path = 0;         // scope path id (0 = root/none)
  int64_t ts_ns = 0;         // monotonicNs()
  uint64_t id = 0;           // scope instance id, or a backend id (e.g. CUPTI correlation id)
  uint32_t name = 0;         // name id (intern.hpp)
  uint32_t tag = 0;          // tag id
  uint32_t depth = 0;        // scope depth (0 = top level)
  uint32_t aux = 0;          // backend use
  uint64_t payload[3] = {};  // backend use
};
static_assert(sizeof(Record) == 64);
static_assert(std::is_trivially_copyable_v<Record>);

// The OS thread owning a buffer, as the writer thread sees it while draining.
struct ThreadInfo {
  int64_t tid = 0;            // gettid()
  uint32_t thread_index = 0;  // 1.., unique for the process lifetime
};

}  // namespace gpufl::core
