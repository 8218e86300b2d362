#include "monitor/http_server.hpp"

#include <httplib.h>

#include "http/bearer.hpp"
#include "http/guarded_server.hpp"
#include "monitor/exposition.hpp"

namespace gpufl::monitor {

struct HttpServer::Impl {
  http::GuardedServer server;  // its limits: guarded_server.hpp
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<HttpServer> HttpServer::start(const ListenAddress& address, std::string token,
                                              Body metrics, std::string* error) {
  auto impl = std::make_unique<Impl>();
  httplib::Server& srv = impl->server.routes();
  auto authorized = [token](const httplib::Request& req, httplib::Response& res) {
    if (token.empty() || http::bearerMatches(req.get_header_value("Authorization"), token))
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
  if (!impl->server.listen(address.host, address.port, error)) return nullptr;
  impl->server.start();
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::port() const {
  return impl_->server.port();
}

void HttpServer::stop() {
  impl_->server.stop();
}

}  // namespace gpufl::monitor
