// JSON string output that is valid whatever bytes come in: kernel names, scope names, stack frames
// and notes come from the profiled program and may hold control characters or broken UTF-8, yet
// every line we write must parse.
#pragma once

#include <string>
#include <string_view>

namespace gpufl::log {

// Appends `text` as a quoted JSON string. Quotes, backslashes and control characters are escaped;
// each maximal invalid UTF-8 subsequence (Unicode's "substitution of maximal subparts") becomes
// U+FFFD, so the result is valid UTF-8 JSON for any input.
void appendJsonString(std::string& out, std::string_view text);

// True when `text` is exactly one JSON value (optionally surrounded by whitespace): used to decide
// whether an option value given "as JSON text" can be written raw or must be quoted.
bool isJsonValue(std::string_view text);

}  // namespace gpufl::log
