// The agent's own log on stderr: one line per event, UTC time first. Warnings of one kind are
// rate-limited (the first 20, then every 1000th) so a stream of damaged lines cannot flood it; the
// metrics count every one. Never pass a token here.
#pragma once

#include <string>

namespace gpufl::agent {

void logInfo(const std::string& message);
void logWarning(const std::string& kind, const std::string& message);

}  // namespace gpufl::agent
