// The agent's own counters, served as Prometheus text at /metrics. Counters are atomics: the reader
// thread, the sender thread and the HTTP server thread touch them without a lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace gpufl::agent {

struct AgentMetrics {
  std::atomic<uint64_t> lines_read{0};  // complete lines read from log files
  std::atomic<uint64_t> bytes_read{0};  // raw bytes read from disk (compressed for .zst)
  std::atomic<uint64_t> records_spooled{0};
  std::atomic<uint64_t> batches_sent{0};  // accepted by the receiver (2xx)
  std::atomic<uint64_t> records_sent{0};
  std::atomic<uint64_t> bytes_sent{0};  // compressed bodies accepted
  std::atomic<uint64_t> retries{0};  // attempts that will be repeated (5xx, 429, timeouts, refused)
  std::atomic<uint64_t> sessions_shipped{0};
  std::atomic<uint64_t> otlp_spans{0};    // spans put in the spool for --otlp
  std::atomic<uint64_t> otlp_points{0};   // metric data points put in the spool for --otlp
  std::atomic<uint64_t> unread_bytes{0};  // on disk, not yet read (as of the last scan)
  std::atomic<uint64_t> streams{0};
  std::atomic<int64_t> last_success_unix_ms{0};

  // Errors and skipped input by kind (corrupt_line, too_long_line, torn_line, segment_missing,
  // file_replaced, read_error, symlink_refused, http_5xx, http_429, http_4xx_rejected, network,
  // spool_write, checkpoint_write).
  void error(const std::string& kind, uint64_t n = 1);
  uint64_t errors(const std::string& kind) const;

  // Prometheus text exposition (version 0.0.4); spool figures and lag are passed in.
  std::string render(uint64_t spool_bytes, uint64_t spool_batches, double lag_seconds) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> errors_;
};

}  // namespace gpufl::agent
