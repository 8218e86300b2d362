// Whether the chosen session of a readPrefix was read whole, and if not what was lost, in one line
// for a user: what a gate (`gpufl diff`) checks before it may pass.
#pragma once

#include <string>

#include "log/reader.hpp"

namespace gpufl::log {

// Empty when nothing of the session was lost to damage; otherwise phrases joined by "; ", each with
// its count: unreadable lines, kernel events lost with them, unreadable files, missing segments,
// and what session_end counts beyond what was read. A session without session_end (still running,
// or killed) is not damage by itself; its torn last line is.
std::string describeDamage(const ReadResult& r);

}  // namespace gpufl::log
