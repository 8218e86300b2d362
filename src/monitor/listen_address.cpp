#include "monitor/listen_address.hpp"

#include <arpa/inet.h>

#include <charconv>

namespace gpufl::monitor {
namespace {

// 'text', for a message (built by appending: GCC 12 misreports `"'" + std::string(...)`).
std::string quoted(std::string_view text) {
  std::string q = "'";
  q += text;
  q += '\'';
  return q;
}

}  // namespace

std::optional<ListenAddress> parseListenAddress(std::string_view text, std::string* error) {
  ListenAddress out;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      *error = quoted(text) + ": expected [IPv6]:PORT";
      return std::nullopt;
    }
    out.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0 ||
        text.substr(0, colon).find(':') != std::string_view::npos) {
      *error = quoted(text) + ": expected HOST:PORT (IPv6 as [::1]:PORT)";
      return std::nullopt;
    }
    out.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  int p = -1;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || p < 0 || p > 65535) {
    *error = quoted(text) + ": port must be a number from 0 to 65535";
    return std::nullopt;
  }
  out.port = p;
  return out;
}

bool isLoopback(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    static const in6_addr loopback = IN6ADDR_LOOPBACK_INIT;
    return IN6_ARE_ADDR_EQUAL(&v6, &loopback);
  }
  return false;
}

std::string checkListenPolicy(const ListenAddress& address, const std::string& token) {
  if (isLoopback(address.host) || !token.empty()) return "";
  return "refusing to listen on " + address.host +
         " (not loopback) without a token: set GPUFL_MONITOR_TOKEN or --token-file, and give "
         "Prometheus the same token (authorization: credentials_file)";
}

}  // namespace gpufl::monitor
