// gpufl_http_load: how long a scraper waits while hostile clients hold connections open.
//
//   gpufl_http_load [--port P] [--idle N] [--slow N] [--scrapes N] [--period-ms MS] [--gap-ms MS]
//                   [--path /metrics] [--token-env VAR]
//
// Without --port it serves its own guarded server (a /metrics body of about 20 kB, the monitor's
// size with 8 GPUs); with --port it measures a running daemon on 127.0.0.1 (loopback only). Opens
// the idle and slow connections, then scrapes on a new connection each time and prints the
// latencies (connect to the whole response). Exit status 1 when a scrape failed.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "http/guarded_server.hpp"
#include "http/hostile_clients.hpp"

namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpufl::http;
  int port = 0, scrapes = 200, period_ms = 50, gap_ms = 100;
  size_t idle = 200, slow = 200;
  std::string path = "/metrics", token;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--port")
      port = std::atoi(value.c_str());
    else if (flag == "--idle")
      idle = std::strtoul(value.c_str(), nullptr, 10);
    else if (flag == "--slow")
      slow = std::strtoul(value.c_str(), nullptr, 10);
    else if (flag == "--scrapes")
      scrapes = std::atoi(value.c_str());
    else if (flag == "--period-ms")
      period_ms = std::atoi(value.c_str());
    else if (flag == "--gap-ms")
      gap_ms = std::atoi(value.c_str());
    else if (flag == "--path")
      path = value;
    else if (flag == "--token-env")
      token = std::getenv(value.c_str()) ? std::getenv(value.c_str()) : "";
    else {
      std::fprintf(stderr, "gpufl_http_load: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::unique_ptr<GuardedServer> own;
  if (port == 0) {
    own = std::make_unique<GuardedServer>();
    const std::string body(20000, 'm');
    own->routes().Get("/metrics", [body](const httplib::Request&, httplib::Response& res) {
      res.set_content(body, "text/plain");
    });
    std::string error;
    if (!own->listen("127.0.0.1", 0, &error)) {
      std::fprintf(stderr, "gpufl_http_load: %s\n", error.c_str());
      return 1;
    }
    own->start();
    port = own->port();
  }
  testing::ScrapeTimes quiet =
      testing::scrape(port, path, token, 20, std::chrono::milliseconds(5), std::chrono::seconds(5));
  testing::HostileClients hostile(port, idle, slow, std::chrono::milliseconds(gap_ms));
  const bool all_open = hostile.waitOpen(std::chrono::seconds(20));
  testing::ScrapeTimes t = testing::scrape(
      port, path, token, scrapes, std::chrono::milliseconds(period_ms), std::chrono::seconds(10));
  const size_t open_at_end = hostile.open();
  const uint64_t closed = hostile.closedByServer();
  hostile.stop();
  std::printf("quiet: %zu scrapes, p50 %.2f ms, worst %.2f ms\n", quiet.ms.size(),
              percentile(quiet.ms, 0.5), percentile(quiet.ms, 1.0));
  std::printf(
      "hostile: %zu idle + %zu slow connections (%s; %zu open at the end, %llu closed by "
      "the server and reopened)\n",
      idle, slow, all_open ? "all opened" : "NOT all opened", open_at_end,
      static_cast<unsigned long long>(closed));
  std::printf("scraper: %zu of %d answered, p50 %.2f ms, p99 %.2f ms, worst %.2f ms\n", t.ms.size(),
              scrapes, percentile(t.ms, 0.5), percentile(t.ms, 0.99), percentile(t.ms, 1.0));
  if (own) {
    const ServerStats s = own->stats();
    std::printf(
        "server: %llu accepted, %llu answered, %llu timed out, %llu evicted, %llu refused\n",
        static_cast<unsigned long long>(s.accepted), static_cast<unsigned long long>(s.answered),
        static_cast<unsigned long long>(s.timed_out), static_cast<unsigned long long>(s.evicted),
        static_cast<unsigned long long>(s.refused));
  }
  return t.failed == 0 && quiet.failed == 0 ? 0 : 1;
}
