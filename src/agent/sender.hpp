// Sends spooled batches, oldest first and one at a time (so a session's session_end is only
// acknowledged after everything before it in its channel), by HTTP POST. Failures are retried with
// exponential backoff; a 429 waits what Retry-After says; a receiver that refuses a batch for good
// (4xx other than 401/403/408/429) gets it put aside under spool/rejected/ rather than stopping
// everything behind it.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "agent/agent_metrics.hpp"
#include "agent/spool.hpp"

namespace gpufl::agent {

struct SenderOptions {
  std::string url;       // NDJSON receiver: http://host:port/path or https://...; may be empty
  std::string otlp_url;  // OTLP/HTTP base (http://collector:4318): /v1/traces, /v1/metrics appended
  std::string token;     // bearer token, may be empty; never logged
  std::string host_name;  // sent as X-Gpufl-Host
  std::string ca_file;    // https: CA bundle (default: the system's)
  int timeout_ms = 10000;
  int backoff_min_ms = 250;
  int backoff_max_ms = 30000;
  int retry_after_max_s = 300;
};

// Splits "scheme://host[:port]/path" into "scheme://host[:port]" and "/path"; false when it is not
// http(s).
bool splitUrl(const std::string& url, std::string* origin, std::string* path);

// Seconds from a Retry-After value (delta-seconds or an HTTP-date); -1 when it says nothing usable.
long parseRetryAfter(const std::string& value, long now_unix);

class Sender {
 public:
  using Acked = std::function<void(const BatchHeader&)>;
  Sender(SenderOptions opts, Spool& spool, AgentMetrics& metrics, Acked on_acked);
  // Runs until `stop`; returns at once after it is set (a wait or a POST in progress is cut short;
  // a connect in progress runs to its timeout).
  void run(const std::atomic<bool>& stop);
  // True while the latest attempt failed (and will be retried).
  bool failing() const { return failing_.load(); }

 private:
  SenderOptions opts_;
  Spool& spool_;
  AgentMetrics& metrics_;
  Acked on_acked_;
  std::atomic<bool> failing_{false};
};

}  // namespace gpufl::agent
