// The reader half of the agent: takes each stream (prefix + channel) from its saved position
// through its numbered segments, in order, then its active file, and cuts what it reads into
// batches for the spool. The checkpoint is written after each batch is spooled.
//
// Which file a position is in: segment `next_seg` when it is on disk, else the active file, which
// the writer renames to segment `next_seg` when it rotates. The first line of each file (its
// session_start, unique) identifies it, so a position is never applied to a different file: a file
// replaced under the agent is read again from its start (counted as file_replaced) and a missing
// segment is counted as segment_missing and skipped.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "agent/agent_metrics.hpp"
#include "agent/checkpoint.hpp"
#include "agent/gzip.hpp"
#include "agent/line_check.hpp"
#include "agent/spool.hpp"
#include "agent/watch_scan.hpp"

namespace gpufl::agent {

struct FollowerConfig {
  std::string host_name;
  uint64_t batch_bytes = 4 << 20;
  size_t max_line_bytes = size_t{16} << 20;
  int gzip_level = 1;
  bool ship_lines = true;  // false: only --otlp (lines are read for their session_end, not spooled)
  bool track_otlp = false;  // record session_ends in AgentState::otlp_pending
  // Set: follow() returns after the batch in progress (its position saved), so that a stop does not
  // wait for a large file to be read to its end. May be null.
  const std::atomic<bool>* stop = nullptr;
};

// Forgets the position of streams that have no file left (`scan` found none): a prefix deleted and
// used again starts its numbering at 1, and an old position would skip its first segments. Returns
// how many.
size_t forgetVanishedStreams(AgentState& state, const ScanResult& scan);

// Bit of a channel in AgentState::otlp_pending masks.
uint32_t channelBit(const std::string& channel);

class Follower {
 public:
  // `state` is shared with the sender's acknowledgements; `state_mu` guards it; `save` writes it.
  Follower(FollowerConfig cfg, AgentState& state, std::mutex& state_mu, Spool& spool,
           AgentMetrics& metrics, std::function<bool()> save);
  // Reads what is new in one stream; returns the number of lines consumed (0: nothing new, or the
  // spool is full). Stops early when the spool fills.
  uint64_t follow(const StreamFiles& files);

 private:
  enum class FileEnd { Done, Partial, SpoolFull, Failed };
  FileEnd readFile(const StreamFiles& files, StreamPos& pos, const std::string& path, bool closed,
                   uint64_t* consumed);
  bool seal(const StreamFiles& files, StreamPos& pos, const FilePos& batch_start, uint64_t records,
            std::vector<std::string>& session_ends);

  FollowerConfig cfg_;
  AgentState& state_;
  std::mutex& state_mu_;
  Spool& spool_;
  AgentMetrics& metrics_;
  std::function<bool()> save_;
  LineChecker checker_;
  GzipWriter gzip_;
};

}  // namespace gpufl::agent
