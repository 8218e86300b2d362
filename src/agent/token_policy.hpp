// Where the agent may send its bearer token: over https:// anywhere, over plain http:// only to a
// loopback address (the token would otherwise cross the network in clear), unless the operator
// says --allow-insecure. Checked before the agent starts, and said at start.
#pragma once

#include <string>
#include <vector>

#include "agent/agent.hpp"

namespace gpufl::agent {

// The host of an http(s) URL ("http://[::1]:4318/x" -> "::1"); empty when there is none.
std::string urlHost(const std::string& url);

// Empty when the token may go where the options send it; otherwise why not (a usage error).
std::string checkTokenTransport(const AgentOptions& opts);

// What the agent says at start about each destination's transport of the token (nothing without a
// token).
std::vector<std::string> tokenTransportNotes(const AgentOptions& opts);

}  // namespace gpufl::agent
