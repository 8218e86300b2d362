// What to do about records dropped because gpufl's buffers were full (session_end.dropped): the
// buffer sizes are fixed, so the advice names what fills them, per source, and the option or change
// that records or writes less of it. Every option it names is a real one (a test checks them
// against include/gpufl/init_options.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace gpufl::report {

// The hint's text for `dropped` (session_end.dropped, "write" and the sources that are not full
// buffers left out by the caller or ignored here); empty when nothing was dropped.
std::string droppedAdvice(const std::map<std::string, uint64_t>& dropped);

}  // namespace gpufl::report
