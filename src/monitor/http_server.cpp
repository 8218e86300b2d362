#include "monitor/http_server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "monitor/exposition.hpp"

namespace gpufl::monitor {
namespace {

// Compares without stopping at the first difference, so the time taken says nothing about how much
// of a guessed token was right.
bool sameSecret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ (i < b.size() ? b[i] : 0);
  return diff == 0;
}

}  // namespace

struct HttpServer::Impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  bool stopped = false;
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<HttpServer> HttpServer::start(const ListenAddress& address, std::string token,
                                              Body metrics, std::string* error) {
  auto impl = std::make_unique<Impl>();
  httplib::Server& srv = impl->server;
  auto authorized = [token](const httplib::Request& req, httplib::Response& res) {
    if (token.empty() || sameSecret(req.get_header_value("Authorization"), "Bearer " + token))
      return true;
    res.status = 401;
    res.set_header("WWW-Authenticate", "Bearer");
    res.set_content("unauthorized\n", "text/plain");
    return false;
  };
  srv.Get("/metrics", [authorized, metrics = std::move(metrics)](const httplib::Request& req,
                                                                 httplib::Response& res) {
    if (authorized(req, res)) res.set_content(metrics(), kExpositionContentType);
  });
  srv.Get("/healthz", [authorized](const httplib::Request& req, httplib::Response& res) {
    if (authorized(req, res)) res.set_content("ok\n", "text/plain");
  });
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, with which a second monitor on the same
  // port would start "successfully" and share the scrapes with the first.
  srv.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  srv.set_keep_alive_timeout(30);  // Prometheus keeps its connection between scrapes
  errno = 0;
  impl->port = address.port == 0
                   ? srv.bind_to_any_port(address.host)
                   : (srv.bind_to_port(address.host, address.port) ? address.port : -1);
  if (impl->port <= 0) {
    *error = "cannot listen on " + address.host + ":" + std::to_string(address.port) +
             (errno ? std::string(": ") + std::strerror(errno) : std::string());
    return nullptr;
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->server.listen_after_bind(); });
  // stop() only reaches a server that is already running: wait for it, so that a stop() right after
  // start() cannot leave the thread listening forever.
  for (int i = 0; i < 2000 && !srv.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::port() const {
  return impl_->port;
}

void HttpServer::stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace gpufl::monitor
