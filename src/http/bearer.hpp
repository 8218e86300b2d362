// The bearer-token check of the daemons' endpoints (monitor, agent health).
#pragma once

#include <string>

namespace gpufl::http {

// True when `authorization` (an Authorization header's value) is "Bearer <token>". Compared
// without stopping at the first difference, so the time taken says nothing about how much of a
// guessed token was right.
bool bearerMatches(const std::string& authorization, const std::string& token);

}  // namespace gpufl::http
