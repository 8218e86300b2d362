// The agent's durable state: where each stream (prefix + channel) has been read to, the next batch
// id, and the sessions already shipped. Saved atomically (durable_file.hpp) after every batch put
// in the spool, so a killed agent resumes from the last spooled batch: lines after it are read
// again (at-least-once), never skipped.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "agent/file_cursor.hpp"

namespace gpufl::agent {

// Position in one stream. The file being read is segment `next_seg` when it is on disk, else the
// active file (which becomes segment `next_seg` when the writer rotates it).
struct StreamPos {
  uint64_t next_seg = 1;
  FilePos pos;        // within that file
  uint64_t head = 0;  // firstLineHash of that file once anything of it was read, else 0
};

struct AgentState {
  std::map<std::string, StreamPos> streams;  // by StreamFiles::key()
  uint64_t next_batch = 1;
  // "prefix sid" of sessions shipped whole, the latest kShippedKept.
  std::deque<std::string> shipped;
  // OTLP: sessions whose session_end has been read in some channels ("prefix sid" -> bit per
  // channel: device 1, scope 2, system 4); exported, then dropped, once every channel of the prefix
  // has ended.
  std::map<std::string, uint32_t> otlp_pending;
  static constexpr size_t kShippedKept = 4096;
};

std::string encodeState(const AgentState& state);
// False with *error (naming the field) when `text` is not a state this version wrote.
bool decodeState(const std::string& text, AgentState* state, std::string* error);

}  // namespace gpufl::agent
