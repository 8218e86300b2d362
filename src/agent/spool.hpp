// A bounded on-disk queue of batches ready to send, oldest first. A batch enters the spool before
// the read position that produced it is checkpointed, and leaves it only when the receiver took it,
// so a batch is never lost between the two. Each batch is one file `<20-digit id>.batch`: a header
// line (JSON) then the gzip body. Thread-safe: the reader puts, the sender takes.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gpufl::agent {

struct BatchHeader {
  uint64_t id = 0;
  std::string key;      // idempotency key: the same lines of the same file always get the same key
  std::string prefix;   // log prefix the lines come from
  std::string channel;  // device, scope, system
  uint64_t seg = 0;     // segment number of the file (the number the active file will get)
  uint64_t first_line = 0, last_line = 0;  // 1-based line numbers within the file
  uint64_t records = 0;                    // lines in the batch
  uint64_t text_bytes = 0;                 // uncompressed body size
  int64_t created_unix_ms = 0;
  std::vector<std::string> session_ends;  // sids whose session_end is in the batch
  // What the body is and where it goes: NDJSON lines to --to, or an OTLP request to --otlp.
  enum class Target { Ndjson, OtlpTraces, OtlpMetrics } target = Target::Ndjson;
};

std::string encodeHeader(const BatchHeader& h);
bool decodeHeader(std::string_view line, BatchHeader* h, std::string* error);

class Spool {
 public:
  // Opens (creating) `dir`, takes the batches a previous run left; false with *error.
  bool open(const std::string& dir, uint64_t max_bytes, std::string* error);
  // True when no more batches should be put until the sender catches up.
  bool full() const;
  bool put(const BatchHeader& h, const std::string& body, std::string* error);
  // Waits up to timeout_ms for a batch; reads the oldest. False when there is none (or it cannot be
  // read: *error set, and it was moved aside to rejected/).
  bool oldest(BatchHeader* h, std::string* body, int timeout_ms, std::string* error);
  void remove(uint64_t id);
  // Keeps a batch the receiver refused for good under rejected/ (for a person to look at).
  void reject(uint64_t id);
  uint64_t bytes() const;
  uint64_t count() const;
  int64_t oldestCreatedMs() const;  // 0 when empty
  // Wakes a waiting oldest() (shutdown).
  void wake();

 private:
  std::string pathOf(uint64_t id) const;
  std::string dir_;
  uint64_t max_bytes_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, uint64_t> sizes_;  // id -> file size
  std::map<uint64_t, int64_t> created_;
  uint64_t bytes_ = 0;
};

}  // namespace gpufl::agent
