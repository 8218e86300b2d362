#include "agent/follower.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "agent/agent_log.hpp"

namespace gpufl::agent {
namespace {

int64_t nowUnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string segmentBase(const StreamFiles& f, uint64_t n) {
  char num[24];
  std::snprintf(num, sizeof num, "%06" PRIu64, n);
  return f.prefix + "." + f.channel + "." + num + ".log";
}

}  // namespace

size_t forgetVanishedStreams(AgentState& state, const ScanResult& scan) {
  size_t n = 0;
  for (auto it = state.streams.begin(); it != state.streams.end();) {
    if (scan.streams.count(it->first) == 0) {
      it = state.streams.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

uint32_t channelBit(const std::string& channel) {
  return channel == "device" ? 1u : channel == "scope" ? 2u : channel == "system" ? 4u : 0u;
}

Follower::Follower(FollowerConfig cfg, AgentState& state, std::mutex& state_mu, Spool& spool,
                   AgentMetrics& metrics, std::function<bool()> save)
    : cfg_(std::move(cfg)),
      state_(state),
      state_mu_(state_mu),
      spool_(spool),
      metrics_(metrics),
      save_(std::move(save)),
      gzip_(cfg_.gzip_level) {}

uint64_t Follower::follow(const StreamFiles& files) {
  StreamPos pos;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    auto it = state_.streams.find(files.key());
    if (it != state_.streams.end()) {
      pos = it->second;
    } else {
      // A stream met for the first time starts at its oldest segment on disk (older ones are not
      // ours).
      pos.next_seg = files.segments.empty() ? 1 : files.segments.begin()->first;
      state_.streams[files.key()] = pos;
    }
  }
  uint64_t consumed = 0;
  for (;;) {
    if (spool_.full()) return consumed;
    auto seg = files.segments.lower_bound(pos.next_seg);
    if (seg != files.segments.end()) {
      const auto& [n, path] = *seg;
      if (n > pos.next_seg) {
        // The writer skips a number only when something holds it; a position inside the file we
        // were reading that now carries the number after is the same file.
        if (pos.pos.lines > 0 && firstLineHash(path) == pos.head) {
          pos.next_seg = n;
        } else {
          metrics_.error("segment_missing", n - pos.next_seg);
          logWarning("segment_missing", files.key() + ": segments " + std::to_string(pos.next_seg) +
                                            ".." + std::to_string(n - 1) +
                                            " are gone; their unread lines are lost");
          pos = StreamPos{n, {}, 0};
        }
      } else if (pos.pos.lines > 0 && firstLineHash(path) != pos.head) {
        metrics_.error("file_replaced");
        logWarning("file_replaced",
                   path + ": not the file the saved position was in; reading it from its start");
        pos = StreamPos{n, {}, 0};
      }
      FileEnd end = readFile(files, pos, path, true, &consumed);
      if (end == FileEnd::SpoolFull) return consumed;
      if (end == FileEnd::Partial) return consumed;  // a spool write failed: try again next round
      // Done or Failed (what was readable went out): the next segment.
      pos = StreamPos{n + 1, {}, 0};
      std::lock_guard<std::mutex> lock(state_mu_);
      state_.streams[files.key()] = pos;
      continue;
    }
    if (!files.has_active) return consumed;
    std::string active = files.activePath();
    if (pos.pos.lines > 0) {
      struct stat st {};
      bool same = firstLineHash(active) == pos.head;
      bool shorter =
          ::lstat(active.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) < pos.pos.offset;
      if (!same || shorter) {
        // Rotated since the scan? Then segment next_seg holds our file: the next round takes it
        // there.
        std::string base = segmentBase(files, pos.next_seg);
        if (exists(base) || exists(base + ".zst")) return consumed;
        metrics_.error(shorter && same ? "file_truncated" : "file_replaced");
        logWarning("file_replaced", active + ": " + (shorter && same ? "truncated" : "replaced") +
                                        " under the agent; reading it from its start");
        pos = StreamPos{pos.next_seg, {}, 0};
      }
    }
    FileEnd end = readFile(files, pos, active, false, &consumed);
    (void)end;
    return consumed;
  }
}

Follower::FileEnd Follower::readFile(const StreamFiles& files, StreamPos& pos,
                                     const std::string& path, bool closed, uint64_t* consumed) {
  std::string error;
  auto cursor = FileCursor::open(path, pos.pos, closed, cfg_.max_line_bytes, &error);
  if (!cursor) {
    // Gone between the scan and now (compressed, deleted): the next round sees what replaced it.
    if (errno == ENOENT) return FileEnd::Partial;
    metrics_.error("read_error");
    logWarning("read_error", "cannot read " + error);
    return closed ? FileEnd::Failed : FileEnd::Partial;
  }
  FilePos batch_start = pos.pos;
  uint64_t records = 0;
  std::vector<std::string> ends;
  std::string_view text;
  uint64_t raw_before = 0;
  FileEnd result = FileEnd::Done;
  for (;;) {
    ReadStatus st = cursor->next(&text);
    if (st == ReadStatus::End || st == ReadStatus::Error) {
      if (st == ReadStatus::Error) {
        metrics_.error("read_error");
        logWarning("read_error", path + ": " + cursor->error() + " (line " +
                                     std::to_string(cursor->pos().lines + 1) +
                                     "); the lines before it are shipped");
        result = FileEnd::Failed;
      }
      break;
    }
    bool first = cursor->pos().lines == 1;
    if (st == ReadStatus::Line) {
      if (first) {
        uint64_t h = fnv1a64(text);
        pos.head = h == 0 ? 1 : h;
      }
      LineInfo info = checker_.check(text);
      if (info.ok) {
        gzip_.append(text);
        gzip_.append("\n");
        ++records;
        if (info.session_end) ends.push_back(info.sid);
      } else {
        metrics_.error("corrupt_line");
        logWarning("corrupt_line", path + ":" + std::to_string(cursor->pos().lines) + ": " +
                                       info.why + "; line skipped");
      }
    } else {
      const char* kind = st == ReadStatus::TooLong ? "too_long_line" : "torn_line";
      metrics_.error(kind);
      logWarning(kind, path + ":" + std::to_string(cursor->pos().lines) + ": " +
                           (st == ReadStatus::TooLong ? "line longer than the limit"
                                                      : "last line cut short") +
                           "; skipped");
    }
    metrics_.lines_read++;
    pos.pos = cursor->pos();
    ++*consumed;
    if (gzip_.inputBytes() >= cfg_.batch_bytes) {
      metrics_.bytes_read += cursor->rawBytes() - raw_before;
      raw_before = cursor->rawBytes();
      if (!seal(files, pos, batch_start, records, ends)) return FileEnd::Partial;
      batch_start = pos.pos;
      records = 0;
      if (spool_.full()) return FileEnd::SpoolFull;
      if (cfg_.stop != nullptr && cfg_.stop->load()) return FileEnd::Partial;  // the rest: next run
    }
  }
  metrics_.bytes_read += cursor->rawBytes() - raw_before;
  if (pos.pos.lines != batch_start.lines && !seal(files, pos, batch_start, records, ends))
    return FileEnd::Partial;
  return result;
}

bool Follower::seal(const StreamFiles& files, StreamPos& pos, const FilePos& batch_start,
                    uint64_t records, std::vector<std::string>& session_ends) {
  BatchHeader h;
  h.prefix = files.prefix;
  h.channel = files.channel;
  h.seg = pos.next_seg;
  h.first_line = batch_start.lines + 1;
  h.last_line = pos.pos.lines;
  h.records = records;
  h.text_bytes = gzip_.inputBytes();
  h.created_unix_ms = nowUnixMs();
  h.session_ends = std::move(session_ends);
  session_ends.clear();
  // Same file (by its first line), same lines: same key, whichever run of the agent cut the batch.
  std::string identity = cfg_.host_name + '\n' + files.key() + '\n' + hex64(pos.head) + '\n' +
                         std::to_string(h.first_line) + '-' + std::to_string(h.last_line);
  h.key = hex64(fnv1a64(identity)) + hex64(fnv1a64(identity, 0x84222325cbf29ce4ull));
  std::string body = gzip_.finish();
  std::string error;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    h.id = state_.next_batch;
  }
  if (records > 0 && cfg_.ship_lines && !spool_.put(h, body, &error)) {
    metrics_.error("spool_write");
    logWarning("spool_write", "cannot spool a batch: " + error + "; will read those lines again");
    pos.pos = batch_start;
    return false;
  }
  metrics_.records_spooled += records;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    if (records > 0) state_.next_batch++;
    state_.streams[files.key()] = pos;
    if (cfg_.track_otlp)
      for (const std::string& sid : h.session_ends)
        state_.otlp_pending[files.prefix + " " + sid] |= channelBit(files.channel);
  }
  // A batch of only skipped lines is not spooled, but the position still moves past them.
  if (!save_()) metrics_.error("checkpoint_write");
  return true;
}

}  // namespace gpufl::agent
