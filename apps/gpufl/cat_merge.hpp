// `gpufl cat`'s one stream: the records of a session's three channels (as the log writer prints
// them, channel after channel, each run starting with its session_start) merged into time order,
// with each kernel_event given its kernel's name. Pure text in, text out, so tests feed it lines by
// hand.
#pragma once

#include <string>
#include <string_view>

namespace gpufl::cli {

// Orders lines by their time (ts_ns, else start_ns, else end_ns); a line with no time (pc_sample,
// sass_metric) keeps its place after the line before it, and definitions (kernel_def, scope_path,
// stack) come right after session_start, so every record follows the definitions it refers to.
// The session_start / session_end each channel repeats are printed once (a copy without the device
// list, which only the device channel has, counts as a repeat), session_end last. Used for one
// channel too: each channel's copy reaches the writer whichever channel is kept.
// Every other line is kept, in a stable order for equal times.
std::string mergeByTime(std::string_view ndjson);

// Adds "kernel":"<demangled name>" after the "k" field of every kernel_event line whose kernel_def
// is in the text (the name exactly as the kernel_def spells it, JSON escapes included).
std::string nameKernelEvents(std::string_view ndjson);

}  // namespace gpufl::cli
