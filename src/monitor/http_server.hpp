// The monitor's HTTP endpoint: GET /metrics answers with the latest exposition text, GET /healthz
// with "ok". With a token, both need "Authorization: Bearer <token>" (401 otherwise). Served by
// http::GuardedServer, so misbehaving clients cannot keep a scraper waiting; `metrics` runs on the
// server's thread: it must be thread-safe and quick.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "monitor/listen_address.hpp"

namespace gpufl::monitor {

class HttpServer {
 public:
  using Body = std::function<std::string()>;

  // Binds (so that a taken port fails here, with the system's reason) and serves on a thread of its
  // own. nullptr and *error set when the address cannot be bound.
  static std::unique_ptr<HttpServer> start(const ListenAddress& address, std::string token,
                                           Body metrics, std::string* error);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const;  // the bound port (the one chosen when asked for port 0)
  void stop();  // closes every connection at once (the request in progress finishes); idempotent

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpufl::monitor
