// `gpufl agent`: follows log prefixes and directories and ships their lines to an HTTP receiver.
//
// Three threads: the reader (scan the watched trees, read new lines, cut them into gzip batches,
// put each batch in the spool, then checkpoint the read position), the sender (spool -> POST,
// oldest first) and the health server (/metrics, /healthz). The spool sits between reading and
// sending, so a receiver that is down only fills the spool; when it is full the reader waits (the
// log files hold the rest).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace gpufl::agent {

struct AgentOptions {
  std::vector<std::string> inputs;  // PREFIX_OR_DIR...
  std::string to;                   // NDJSON receiver URL (may be empty when otlp is set)
  std::string otlp;          // OTLP/HTTP endpoint base, e.g. http://127.0.0.1:4318 (may be empty)
  size_t otlp_items = 2000;  // spans or data points per OTLP request
  std::string token;         // bearer token (from the environment or a file, never argv)
  std::string ca_file;
  std::string state_dir;                  // checkpoint and spool
  std::string listen = "127.0.0.1:9465";  // empty: no health server
  int poll_ms = 500;                      // rescan period (inotify wakes it earlier)
  uint64_t batch_bytes = 4 << 20;  // uncompressed text per batch, at most (one line may exceed it)
  uint64_t spool_max_bytes = uint64_t{256} << 20;
  int timeout_ms = 10000;
  int backoff_min_ms = 250;
  int backoff_max_ms = 30000;
  int gzip_level = 1;
  double unhealthy_lag_s = 300;
  bool exit_when_drained = false;  // stop once everything on disk went through (benchmarks, tests)
  bool allow_insecure = false;  // send the token over plain http:// beyond loopback (token_policy)
};

// Checks what can be checked before starting (URL, listen address vs token, the token's transport:
// token_policy.hpp); empty when fine.
std::string validateOptions(const AgentOptions& opts);

// Runs until `stop` is set (or, with exit_when_drained, until nothing is left). Returns the exit
// code.
int runAgent(const AgentOptions& opts, const std::atomic<bool>& stop);

// "HOST:PORT" (HOST may be [v6]) -> host and port; false when malformed.
bool parseListen(const std::string& listen, std::string* host, int* port);
bool isLoopbackHost(const std::string& host);

}  // namespace gpufl::agent
