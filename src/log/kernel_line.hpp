// The fields of one kernel_event record, and a reader for the one layout the writer gives it.
//
// Kernel events are nearly every line of a log, so the report's reading speed is theirs. Their
// lines, as ndjson_format.cpp writes them, are a flat object of integers in a fixed order:
//   {"type":"kernel_event","sid":"<sid>","dur_ns":-?N,"k":N,...,"dcorr":-?N,"dt_ns":-?N}
// scanWriterKernelLine() reads exactly that family of lines: the head above, then only known keys,
// each once, each with an integer in range for its field (instr: true or false), no whitespace, and
// nothing after the closing brace. Such a line is valid JSON, and every field has the value a JSON
// parser would give it. Anything else (another key order is fine; an unknown or repeated key, a
// float, an escape, a space, a value out of range, a damaged byte) returns false, and the caller
// reads the line with the full parser, which decides what is wrong with it: the fast path never
// decides that a line is bad, so errors and warnings are those of the full parser.
// Internal to src/log.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/events.hpp"

namespace gpufl::log::detail {

// A kernel_event's fields as read, before its position is placed by the kernel chain. The fields
// the chain does not need (def_id, stream, scope_path, stack_id, graph_id, instrumented) go
// straight into `event`.
struct KernelFields {
  int64_t dur = 0, start = 0, end = 0, dt = 0, dcorr = 0;
  uint64_t corr = 0;
  bool k = false, have_dur = false, have_start = false, have_end = false, have_corr = false;
  bool have_dt = false, have_dcorr = false;
};

// True when `text` (one line without its '\n') is a kernel_event in the writer's layout (above);
// then `sid` is its sid as written (a view into `text`), and `fields` and the per-kernel fields of
// `event` hold its values (fields absent from the line keep their defaults; `event` should be
// reset by the caller). False: nothing can be concluded; read the line with the full parser.
bool scanWriterKernelLine(std::string_view text, std::string_view& sid, KernelFields& fields,
                          KernelEvent& event);

}  // namespace gpufl::log::detail
