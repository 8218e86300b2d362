#include "agent/token_policy.hpp"

namespace gpufl::agent {
namespace {

struct Destination {
  const char* flag;
  const std::string* url;
};

std::vector<Destination> destinations(const AgentOptions& opts) {
  std::vector<Destination> out;
  if (!opts.to.empty()) out.push_back({"--to", &opts.to});
  if (!opts.otlp.empty()) out.push_back({"--otlp", &opts.otlp});
  return out;
}

bool isPlainHttp(const std::string& url) {
  return url.rfind("http://", 0) == 0;
}

}  // namespace

std::string urlHost(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return {};
  std::string authority = url.substr(scheme + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const size_t at = authority.rfind('@'); at != std::string::npos)
    authority = authority.substr(at + 1);
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    return close == std::string::npos ? std::string() : authority.substr(1, close - 1);
  }
  return authority.substr(0, authority.find(':'));
}

std::string checkTokenTransport(const AgentOptions& opts) {
  if (opts.token.empty() || opts.allow_insecure) return {};
  for (const Destination& d : destinations(opts)) {
    if (!isPlainHttp(*d.url) || isLoopbackHost(urlHost(*d.url))) continue;
    return std::string("refusing to send the bearer token in clear: ") + d.flag + " " + *d.url +
           " is plain http:// to a host that is not loopback; use https://, or give "
           "--allow-insecure to send it anyway";
  }
  return {};
}

std::vector<std::string> tokenTransportNotes(const AgentOptions& opts) {
  std::vector<std::string> notes;
  if (opts.token.empty()) return notes;
  for (const Destination& d : destinations(opts)) {
    if (!isPlainHttp(*d.url)) {
      notes.push_back(std::string("the bearer token goes to ") + *d.url + " over TLS");
    } else if (isLoopbackHost(urlHost(*d.url))) {
      notes.push_back(std::string("the bearer token goes to ") + *d.url +
                      " in clear (plain http:// to loopback: it stays on this host)");
    } else {
      notes.push_back(std::string("warning: the bearer token goes to ") + *d.url +
                      " in clear over the network (plain http://, allowed by --allow-insecure)");
    }
  }
  return notes;
}

}  // namespace gpufl::agent
