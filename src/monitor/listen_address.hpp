// `--listen HOST:PORT` for the monitor's HTTP endpoint, and the rule that keeps it private: a
// non-loopback address needs a token.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpufl::monitor {

struct ListenAddress {
  std::string host;  // as given, without IPv6 brackets ("127.0.0.1", "::1", "0.0.0.0", "localhost")
  int port = 0;      // 0: any free port (tests)
};

// "127.0.0.1:9464", "[::1]:9464", "localhost:9464". nullopt and *error set otherwise.
std::optional<ListenAddress> parseListenAddress(std::string_view text, std::string* error);

// 127.0.0.0/8, ::1 and "localhost": only processes of this host can connect.
bool isLoopback(const std::string& host);

// Why the address may not be used with this token (empty when it may): anything but loopback needs
// a token, so that a fleet's metrics are not open to the network by accident.
std::string checkListenPolicy(const ListenAddress& address, const std::string& token);

}  // namespace gpufl::monitor
