// An HTTP server for the daemons' small endpoints (the monitor's /metrics, the agent's /metrics and
// /healthz) that keeps answering while other clients misbehave.
//
// cpp-httplib's own server gives each connection a thread of a fixed pool for as long as it stays
// open, so a handful of idle or slow clients leave none for a scraper. Here one thread multiplexes
// every connection with poll(): it reads each request whole (scanRequestHead checks the limits as
// bytes arrive), then hands it to cpp-httplib's parser, router and response writer (its
// process_request, over an in-memory stream), and sends the response without blocking. The limits
// are cpp-httplib's own settings where it has one, set through its setters; the rest are ours:
// - set_read_timeout: a request must arrive whole within this long of its first byte (408, close);
// - set_write_timeout: a response must be taken within this long (else the connection is closed);
// - set_keep_alive_timeout: a connection with no request in progress is closed after this long;
// - set_keep_alive_max_count: requests per connection (the last one is answered with a close);
// - set_payload_max_length: the largest body (a larger Content-Length: 413, close);
// - ours: the request line (414) and header (431) sizes, answered with a close, and a cap on open
//   connections: past it the oldest idle connection is closed first, then the oldest one still
//   sending its request; a new connection is refused only when every other one is being answered.
// Handlers run on the server's one thread: they must be quick (the daemons' copy a prepared text).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "http/request_head.hpp"

namespace httplib {
class Server;
}

namespace gpufl::http {

struct ServerLimits {
  std::chrono::milliseconds request_deadline{2000};
  std::chrono::milliseconds write_deadline{2000};
  std::chrono::seconds idle_timeout{30};  // Prometheus keeps its connection between scrapes
  size_t requests_per_connection = 1000;
  HeadLimits head;               // head.body_bytes is cpp-httplib's payload_max_length
  size_t max_connections = 512;  // under the usual 1024 descriptors a process may open
};

struct ServerStats {
  uint64_t accepted = 0;
  uint64_t open = 0;         // connections open now
  uint64_t answered = 0;     // requests handed to the router
  uint64_t rejected = 0;     // 400, 413, 414, 431 or 501 before routing, then closed
  uint64_t timed_out = 0;    // request or response past its deadline (408 sent when reading)
  uint64_t idle_closed = 0;  // idle past the keep-alive timeout
  uint64_t evicted = 0;      // closed to make room for a new connection
  uint64_t refused = 0;      // new connections closed at once: every open one was being answered
};

class GuardedServer {
 public:
  explicit GuardedServer(ServerLimits limits = {});
  ~GuardedServer();  // stop()
  GuardedServer(const GuardedServer&) = delete;
  GuardedServer& operator=(const GuardedServer&) = delete;

  // Where handlers are registered (Get, Post, ...), before start().
  httplib::Server& routes();

  // Binds and listens (port 0: any free port; SO_REUSEADDR, never SO_REUSEPORT, so that a second
  // server on a taken port fails here). False with *error naming the address and the reason.
  bool listen(const std::string& host, int port, std::string* error);
  int port() const;

  void start();  // serves on a thread of its own
  // Closes every connection and the listening socket; returns within a few milliseconds whatever
  // the clients do (the handler in progress, if any, finishes first). Idempotent.
  void stop();

  ServerStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpufl::http
