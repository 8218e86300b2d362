// One function per record type: each appends exactly one NDJSON line ('\n' terminated) to `out`,
// with the field names of docs/log-format.md. Absent optionals are omitted. No allocation beyond
// growing `out`, so a caller that reuses its buffer formats without allocating after warm-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "core/events.hpp"

namespace gpufl::log {

// Per-file state of the compact kernel_event encoding: for each session, the previous kernel's
// start and correlation id, and how many kernels were written since the last absolute record. The
// first kernel of a session after reset() is absolute, and so is every kResyncInterval-th after
// that; those later absolute records also carry the differences from the previous kernel, and
// appendChainEnds() writes where each chain ended, so that a reader can place the kernels between a
// lost line and the next of these by walking the differences backwards (docs/log-format.md).
class KernelDeltaEncoder {
 public:
  static constexpr uint32_t kResyncInterval = 1024;

  struct State {
    std::string sid;
    std::string head;  // `{"type":"kernel_event","sid":"<sid>"`, escaped once, not per line
    int64_t last_start_ns = 0;
    uint64_t last_corr = 0;
    uint32_t since_absolute =
        0;  // kernels written since (and including) the last absolute one; 0 = none yet
  };

  // Call when a new file (segment) begins, or when written lines may have been lost.
  void reset() { states_.clear(); }
  State& stateFor(const std::string& sid);
  // Appends a kernel_chain line for each session whose last kernel_event in this file was a
  // difference: call before the file ends (rotation, close).
  void appendChainEnds(std::string& out) const;

 private:
  std::vector<State> states_;  // sessions sharing a writer are few: a linear search beats hashing
  size_t last_ = 0;
};

// formatRecord(out, e) for every record type of core/record_list.hpp: the record as one line,
// standalone (session_start with its devices, kernel_event with absolute times: what `gpufl cat`
// prints). memcpy_event or memset_event by e.is_memset.
#define GFL_FORMAT_DECLARE_(T, type, channel, on) void formatRecord(std::string& out, const T& e);
GFL_RECORDS(GFL_FORMAT_DECLARE_)
#undef GFL_FORMAT_DECLARE_

// session_start; `with_devices` is true only for the device channel.
void formatSessionStart(std::string& out, const SessionStart& e, bool with_devices);
// kernel_event in the compact encoding, delta or absolute as `delta` decides (and updates).
void formatKernelEvent(std::string& out, const KernelEvent& e, KernelDeltaEncoder& delta);
// kernel_event with absolute start_ns, end_ns and corr always: what `gpufl cat` prints.
void formatKernelEventAbsolute(std::string& out, const KernelEvent& e);

}  // namespace gpufl::log
