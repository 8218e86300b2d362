// Misbehaving HTTP clients on loopback, for the guarded server's tests and its load measurement
// (gpufl_http_load): idle connections that never send a byte, slow ones that trickle a request head
// that never ends, and a scraper that times each of its requests.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace gpufl::http::testing {

// A blocking TCP connection to 127.0.0.1:port; -1 when it fails.
int connectLoopback(int port);
bool sendAll(int fd, std::string_view bytes);
// What arrives until the peer closes or `timeout` passes; *closed says which.
std::string readUntilClose(int fd, std::chrono::milliseconds timeout, bool* closed);

// Holds `idle` and `slow` connections to a port on a thread of its own. A slow connection sends one
// byte of an endless header every `gap`. A connection the server closes is opened again at once
// (what an attacker would do), so the counts stay up.
class HostileClients {
 public:
  HostileClients(int port, size_t idle, size_t slow, std::chrono::milliseconds gap);
  ~HostileClients();  // stop()
  HostileClients(const HostileClients&) = delete;
  HostileClients& operator=(const HostileClients&) = delete;

  // True once every connection was opened (at most `timeout`).
  bool waitOpen(std::chrono::milliseconds timeout) const;
  size_t open() const { return open_.load(); }
  uint64_t closedByServer() const { return closed_by_server_.load(); }
  void stop();

 private:
  void run();
  int port_;
  size_t idle_, slow_;
  std::chrono::milliseconds gap_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> open_{0};
  std::atomic<uint64_t> closed_by_server_{0};
  std::thread thread_;
};

struct ScrapeTimes {
  std::vector<double> ms;  // per answered request: connect to the whole response
  size_t failed = 0;       // no complete 200 response within the timeout
};

// `count` requests for `path`, each on a new connection, one every `period`.
ScrapeTimes scrape(int port, const std::string& path, const std::string& token, int count,
                   std::chrono::milliseconds period, std::chrono::milliseconds timeout);

}  // namespace gpufl::http::testing
