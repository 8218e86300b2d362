// Text from a log (app, kernel, scope and device names, notes) shown on a terminal. A log may hold
// any string, and control characters printed raw move the cursor, recolour, retitle or clear the
// terminal, and a newline breaks a table. Every text renderer passes what it prints through
// terminalSafe; JSON output needs nothing more than its own string escaping (log/json_escape).
#pragma once

#include <string>
#include <string_view>

namespace gpufl {

// `text` with everything a terminal could act on made visible: "\n", "\r", "\t", other C0 controls
// and DEL as "\xNN"; C1 controls (U+0080-U+009F, some terminals treat them as ESC sequences) and
// the bidirectional and line-separator controls that reorder or break what is shown (U+2028-U+202E,
// U+2066-U+2069) as
// "\uXXXX"; bytes that are not UTF-8 as "\xNN". Printable text, UTF-8 included, is copied unchanged
// (so ordinary names cost one scan). Not reversible: a backslash in the input stays as it is.
std::string terminalSafe(std::string_view text);

}  // namespace gpufl
