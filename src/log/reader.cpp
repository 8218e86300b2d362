// readPrefix: one pass over the files of a prefix, streaming one line at a time, after the sessions
// are listed from one channel: the one with the fewest bytes (every channel repeats each
// session_start; a cheap prefilter skips every other line). Only when that channel lists no
// session, or none the request names, are the other channels scanned too (a damaged log); a log
// with no session_start at all is scanned once more for the sids of its records. Reading rules
// decided here, beyond docs/log-format.md:
// - Segment N present both plain and .zst: the plain file is read (see segments.cpp).
// - Blank lines are ignored; a line longer than ReadOptions::max_line_bytes is skipped with a
// warning.
// - Keys, types and sids are compared as written (not unescaped); values of unknown fields are
// skipped
//   without full validation (simdjson On-Demand), so garbage inside an ignored field goes
//   unnoticed.
// - zstd verifies a frame's checksum at its end: data of a damaged frame may be decoded (and
//   parsed, so most damage shows as garbage lines) before the corruption is reported.
#include "log/reader.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <unordered_set>

#include "log/read_tally.hpp"
#include "log/record_parser.hpp"
#include "log/segments.hpp"
#include "log/session_reader.hpp"

namespace gpufl::log {
namespace {

constexpr Channel kChannels[] = {Channel::Device, Channel::Scope, Channel::System};

std::unique_ptr<LineSource> openDiskFile(const std::string& name, size_t max_line,
                                         std::string* error) {
  return LineSource::openFile(name, max_line, error);
}

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  }
  return true;
}

std::string describe(const SessionListing& s) {
  char when[32] = "?";
  const std::time_t secs = static_cast<std::time_t>(s.start_unix_ns / 1000000000);
  std::tm tm{};
  if (gmtime_r(&secs, &tm) != nullptr) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return s.sid + " (" + s.session_id + ", app '" + s.app + "', started " + when + ")";
}

std::string describeAll(const std::vector<SessionListing>& sessions) {
  if (sessions.empty()) return "none";
  std::string text;
  for (const auto& s : sessions) text += (text.empty() ? "" : "; ") + describe(s);
  return text;
}

// Most lines are not session starts and are rejected without parsing. The writer begins every line
// with
// {"type":"<type>", which decides at once; other layouts (jq output, reordered keys) get a
// substring search.
bool maybeSessionStart(std::string_view line) {
  constexpr std::string_view kHead = R"({"type":")", kType = R"(session_start")";
  if (line.substr(0, kHead.size()) == kHead)
    return line.substr(kHead.size(), kType.size()) == kType;
  constexpr std::string_view kNeedle = "session_start";
  return memmem(line.data(), line.size(), kNeedle.data(), kNeedle.size()) != nullptr;
}

// What selection has to go on when no session_start survived: the sids of the records, first seen
// first (at most kMaxSids, so hostile input cannot grow memory), and the last record's sid.
struct RecordSids {
  static constexpr size_t kMaxSids = 1024;
  std::vector<std::string> distinct;
  std::string last;
};

// Calls fn(text) for every well-formed line of `inputs`, in order. A file that cannot be opened is
// skipped here: the decoding pass (decodeInput) warns about it.
template <typename Fn>
void forEachGoodLine(const std::vector<std::string>& inputs, const SourceOpener& open, Fn&& fn) {
  for (const auto& name : inputs) {
    std::string error;
    auto source = open(name, &error);
    Line line;
    while (source && source->next(line))
      if (line.status == Line::Status::Ok) fn(line.text);
  }
}

RecordSids scanRecordSids(const std::vector<std::string>& inputs, const SourceOpener& open) {
  SessionProbe probe;
  RecordSids sids;
  forEachGoodLine(inputs, open, [&](std::string_view text) {
    std::string sid = probe.sidOf(text);
    if (sid.empty()) return;
    if (sids.distinct.size() < RecordSids::kMaxSids &&
        std::find(sids.distinct.begin(), sids.distinct.end(), sid) == sids.distinct.end())
      sids.distinct.push_back(sid);
    sids.last = std::move(sid);
  });
  return sids;
}

// Without any session_start: the last record's sid by default, else the one sid the request names
// (a prefix of it, or a full session id that starts with it).
bool chooseWithoutSessionStart(const std::vector<std::string>& inputs, const SourceOpener& open,
                               const std::string& want, WarningList& warnings, ReadResult& result) {
  RecordSids sids = scanRecordSids(inputs, open);
  std::vector<std::string> matches;
  if (want.empty()) {
    if (!sids.last.empty()) matches.push_back(sids.last);
  } else {
    for (const auto& sid : sids.distinct)
      if (startsWithNoCase(sid, want) || startsWithNoCase(want, sid)) matches.push_back(sid);
  }
  if (matches.size() == 1) {
    result.chosen_sid = matches[0];
    warnings.add("", 0,
                 "no session_start record found; reading the records with sid '" +
                     result.chosen_sid + "'" + (want.empty() ? " (the last record's)" : ""));
    return true;
  }
  std::string seen;
  for (const auto& sid : sids.distinct) seen += (seen.empty() ? "" : ", ") + sid;
  warnings.add("", 0,
               std::string("no session_start record found and ") +
                   (want.empty() ? "no record has a sid"
                                 : "'" + want + "' matches " + std::to_string(matches.size()) +
                                       " of the sids seen") +
                   "; sids seen: " + (seen.empty() ? "none" : seen));
  // With nothing requested, decoding still runs: it delivers nothing but says what is wrong with
  // each line.
  return want.empty();
}

// Picks the sid to read; empty with a warning when the requested session is unknown or ambiguous.
bool chooseSession(const std::vector<std::string>& inputs, const SourceOpener& open,
                   const ReadOptions& options, WarningList& warnings, ReadResult& result) {
  const auto& sessions = result.sessions;
  const std::string& want = options.session;
  if (sessions.empty()) return chooseWithoutSessionStart(inputs, open, want, warnings, result);
  if (want.empty()) {
    result.chosen_sid = sessions.back().sid;  // sorted oldest first, ties in the order seen
    result.chosen_session_id = sessions.back().session_id;
    return true;
  }
  std::vector<const SessionListing*> matches, exact;
  for (const auto& s : sessions) {
    if (startsWithNoCase(s.session_id, want) || startsWithNoCase(s.sid, want))
      matches.push_back(&s);
    if ((s.session_id.size() == want.size() && startsWithNoCase(s.session_id, want)) ||
        (s.sid.size() == want.size() && startsWithNoCase(s.sid, want)))
      exact.push_back(&s);
  }
  if (exact.size() == 1 || matches.size() == 1) {
    const SessionListing& chosen = *(exact.size() == 1 ? exact : matches).front();
    result.chosen_sid = chosen.sid;
    result.chosen_session_id = chosen.session_id;
    return true;
  }
  warnings.add("", 0,
               (matches.empty() ? "no session matches '" : "session '") + want +
                   (matches.empty() ? "'" : "' is ambiguous") +
                   "; available sessions: " + describeAll(sessions));
  return false;
}

// Appends the sessions whose session_start appears in `inputs` and are not yet in `seen` (sid +
// '\n' + session_id: linear in the number of sessions). Only session_start lines are parsed.
void addSessions(const std::vector<std::string>& inputs, const SourceOpener& open,
                 std::vector<SessionListing>& sessions, std::unordered_set<std::string>& seen) {
  SessionProbe probe;
  forEachGoodLine(inputs, open, [&](std::string_view text) {
    if (!maybeSessionStart(text)) return;
    SessionListing listing;
    if (!probe.sessionStart(text, &listing)) return;
    // Every channel repeats the session_start; the first copy seen describes the session.
    if (seen.insert(listing.sid + '\n' + listing.session_id).second)
      sessions.push_back(std::move(listing));
  });
}

void sortOldestFirst(std::vector<SessionListing>& sessions) {
  std::stable_sort(sessions.begin(), sessions.end(),
                   [](const auto& a, const auto& b) { return a.start_unix_ns < b.start_unix_ns; });
}

// The channel whose files cost least to read: every channel repeats each session_start, so one is
// enough to list the sessions, and the device channel (kernel events) is usually 100-1000x the
// others. Cost is bytes on disk, a compressed segment counted at kZstdRatio times its size; a name
// that is not on disk (inputs fed from memory) counts 0.
std::string_view listingChannel(const std::vector<std::string>& inputs) {
  constexpr uintmax_t kZstdRatio = 20;  // 105 B raw, 4.45 B zstd per kernel on an H200 storm
  std::vector<std::pair<std::string_view, uintmax_t>> cost;  // channel, bytes; first seen first
  for (const auto& name : inputs) {
    std::error_code ec;
    uintmax_t bytes = std::filesystem::file_size(name, ec);
    if (ec) bytes = 0;
    if (isCompressedPath(name)) bytes *= kZstdRatio;
    const std::string_view channel = channelOfPath(name);
    auto it =
        std::find_if(cost.begin(), cost.end(), [&](const auto& c) { return c.first == channel; });
    if (it == cost.end())
      cost.emplace_back(channel, bytes);
    else
      it->second += bytes;
  }
  if (cost.empty()) return {};
  // Ties go to the later channel: system and scope are small where the device channel is large.
  auto best = cost.begin();
  for (auto it = cost.begin(); it != cost.end(); ++it)
    if (it->second <= best->second) best = it;
  return best->first;
}

// What decoding one input gave for the chosen session.
struct InputTally {
  uint64_t records = 0;
  bool started = false;  // its session_start is in this input
};

std::string segmentText(uint64_t n) {
  char text[24];
  std::snprintf(text, sizeof text, "%06llu", static_cast<unsigned long long>(n));
  return text;
}

// Every hole in a channel's numbering is a warning. It is the chosen session's loss when the
// session has records after the hole in that channel and did not start after it.
void checkSegmentGaps(const std::vector<std::string>& inputs, const std::vector<InputTally>& tally,
                      WarningList& warnings, ReadResult& result) {
  for (const SegmentGap& gap : segmentGaps(inputs)) {
    const std::string range =
        gap.first == gap.last ? "segment " + segmentText(gap.first)
                              : "segments " + segmentText(gap.first) + "-" + segmentText(gap.last);
    bool records_after = false, started_after = false;
    for (size_t i = gap.next_input; i < inputs.size(); ++i) {
      if (channelOfPath(inputs[i]) != gap.channel) continue;
      records_after = records_after || tally[i].records > 0;
      started_after = started_after || tally[i].started;
    }
    const bool ours = records_after && !started_after;
    warnings.add(inputs[gap.next_input], 0,
                 range + " of channel '" + gap.channel + "' missing before this file" +
                     (ours ? ": records of this session were lost" : ""));
    if (ours) result.missing_segments.push_back(MissingSegments{gap.channel, gap.first, gap.last});
  }
}

// session_end says what the session wrote; fewer (or more) records read means lines or files were
// lost.
void checkCounts(const ReadTally& tally, WarningList& warnings, ReadResult& result) {
  result.have_written = tally.haveWritten();
  result.written = tally.written();
  result.read = tally.read();
  if (!result.have_written || result.written == result.read) return;
  std::string text;
  const auto compare = [&](const char* what, uint64_t written, uint64_t read) {
    if (written == read) return;
    text += (text.empty() ? "" : "; ") + std::to_string(written) + " " + what + " written; " +
            std::to_string(read) + " were read";
  };
  compare("kernel events", result.written.kernels, result.read.kernels);
  compare("copies", result.written.memcpys, result.read.memcpys);
  compare("scopes", result.written.scopes, result.read.scopes);
  warnings.add("", 0, "session_end counts " + text);
}

// Sessions are listed from one channel; a session_start that channel lacks (its file was deleted or
// damaged) is noticed while decoding, where every line passes anyway, and reported: the session
// could not be chosen by default, but a request naming it scans every channel.
class UnlistedSessions {
 public:
  explicit UnlistedSessions(const std::vector<SessionListing>& listed) {
    for (const auto& s : listed) seen_.insert(key(s));
  }
  void check(std::string_view line, const std::string& file) {
    SessionListing listing;
    if (!probe_.sessionStart(line, &listing) || !seen_.insert(key(listing)).second) return;
    found_.emplace_back(std::move(listing), file);
  }
  void report(const std::string& listed_from, WarningList& warnings, ReadResult& result) {
    for (auto& [s, file] : found_) {
      warnings.add(file, 0,
                   "session " + describe(s) + " has no session_start in channel '" + listed_from +
                       "', where sessions are listed (a file of it is missing or damaged); " +
                       "name it to read it");
      result.sessions.push_back(std::move(s));
    }
    if (!found_.empty()) sortOldestFirst(result.sessions);
  }

 private:
  static std::string key(const SessionListing& s) { return s.sid + '\n' + s.session_id; }
  SessionProbe probe_;
  std::unordered_set<std::string> seen_;
  std::vector<std::pair<SessionListing, std::string>> found_;  // with the file it was found in
};

void decodeInput(const std::string& name, const SourceOpener& open, RecordDecoder& decoder,
                 const ReadOptions& options, WarningList& warnings, ReadResult& result,
                 UnlistedSessions* unlisted) {
  std::string error;
  auto source = open(name, &error);
  if (!source) {
    ++result.unreadable_files;
    warnings.add(name, 0, error);
    return;
  }
  result.files.push_back(name);
  decoder.beginFile(name);
  Line line;
  while (source->next(line)) {
    if (line.status == Line::Status::TooLong) {
      decoder.lostLine(line.number, "line longer than " + std::to_string(options.max_line_bytes) +
                                        " bytes skipped");
    } else {
      if (unlisted != nullptr && maybeSessionStart(line.text)) unlisted->check(line.text, name);
      decoder.decodeLine(line.text, line.number, line.terminated);
    }
  }
  decoder.endFile();
  if (!source->error().empty()) {
    ++result.unreadable_files;
    warnings.add(name, 0, source->error());
  } else if (source->rawBytes() == 0)
    warnings.add(name, 0, "empty file");
}

}  // namespace

std::vector<SessionListing> listSessionsOnce(const std::vector<std::string>& inputs,
                                             const SourceOpener& open, const std::string& want,
                                             std::string* listed_from) {
  std::vector<std::string> listing, others;
  const std::string_view channel = listingChannel(inputs);
  if (listed_from != nullptr) *listed_from = channel;
  for (const auto& name : inputs)
    (channelOfPath(name) == channel ? listing : others).push_back(name);
  std::vector<SessionListing> sessions;
  std::unordered_set<std::string> seen;
  addSessions(listing, open, sessions, seen);
  const bool found =
      want.empty() ? !sessions.empty()
                   : std::any_of(sessions.begin(), sessions.end(), [&](const auto& s) {
                       return startsWithNoCase(s.session_id, want) || startsWithNoCase(s.sid, want);
                     });
  if (!found) {
    addSessions(others, open, sessions, seen);
    if (listed_from != nullptr) listed_from->clear();  // every channel was scanned
  }
  sortOldestFirst(sessions);
  return sessions;
}

void readInputs(const std::vector<std::string>& inputs, const SourceOpener& open,
                const ReadOptions& options, EventVisitor& visitor, WarningList& warnings,
                ReadResult& result) {
  std::string listed_from;
  result.sessions = listSessionsOnce(inputs, open, options.session, &listed_from);
  if (!chooseSession(inputs, open, options, warnings, result)) return;
  UnlistedSessions unlisted(result.sessions);
  ReadTally tally(visitor);
  RecordDecoder decoder(result.chosen_sid, tally, warnings);
  std::vector<std::string> sharing;  // session ids whose sid is the chosen one
  for (const auto& s : result.sessions)
    if (s.sid == result.chosen_sid) sharing.push_back(s.session_id);
  if (sharing.size() > 1) {
    std::string ids;
    for (const auto& id : sharing) ids += (ids.empty() ? "" : ", ") + id;
    warnings.add("", 0,
                 std::to_string(sharing.size()) + " sessions share sid '" + result.chosen_sid +
                     "' (" + ids + "); reading " + result.chosen_session_id +
                     ": the records after its session_start in each channel");
    decoder.separateBySessionId(result.chosen_session_id);
  }
  std::vector<InputTally> per_input(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const uint64_t records = decoder.delivered(), starts = tally.starts();
    decodeInput(inputs[i], open, decoder, options, warnings, result,
                listed_from.empty() ? nullptr : &unlisted);
    per_input[i] = InputTally{decoder.delivered() - records, tally.starts() > starts};
  }
  decoder.endRead();
  unlisted.report(listed_from, warnings, result);
  checkSegmentGaps(inputs, per_input, warnings, result);
  checkCounts(tally, warnings, result);
  result.records = decoder.delivered();
  result.any_readable = result.records > 0;
  result.damaged_lines = decoder.damagedLines();
  result.lost_kernels = decoder.lostKernels();
}

std::string formatWarning(const ReadWarning& w) {
  std::string text = w.file;
  if (w.line > 0) text += ":" + std::to_string(w.line);
  if (!text.empty()) text += ": ";
  return text + w.message;
}

std::vector<SessionListing> listSessions(const std::string& prefix) {
  try {
    std::vector<std::string> inputs;
    for (const Channel c : kChannels) {
      auto files = channelFiles(prefix, c);
      inputs.insert(inputs.end(), files.begin(), files.end());
    }
    const size_t max_line = ReadOptions{}.max_line_bytes;
    const SourceOpener open = [max_line](const std::string& name, std::string* error) {
      return openDiskFile(name, max_line, error);
    };
    return listSessionsOnce(inputs, open, "", nullptr);
  } catch (...) {
    return {};  // listing is best effort; readPrefix reports the problem
  }
}

ReadResult readPrefix(const std::string& prefix, const ReadOptions& options,
                      EventVisitor& visitor) {
  ReadResult result;
  WarningList warnings(options.max_warnings);
  try {
    std::vector<std::string> inputs;
    for (const Channel c : kChannels) {
      auto files = channelFiles(prefix, c);
      if (files.empty()) {
        // Named by its active file, the one a user would look for.
        warnings.add(prefix + "." + channelName(c) + ".log", 0,
                     std::string("no files for channel '") + channelName(c) + "'");
      }
      inputs.insert(inputs.end(), files.begin(), files.end());
    }
    result.found_files = !inputs.empty();
    if (!result.found_files) {
      warnings = WarningList(options.max_warnings);  // one warning says it all
      warnings.add("", 0, "no log files found for prefix '" + prefix + "'");
    } else {
      const size_t max_line = options.max_line_bytes;
      const SourceOpener open = [max_line](const std::string& name, std::string* error) {
        return openDiskFile(name, max_line, error);
      };
      readInputs(inputs, open, options, visitor, warnings, result);
    }
  } catch (const std::exception& e) {
    warnings.add("", 0, std::string("reading stopped: ") + e.what());
  } catch (...) {
    warnings.add("", 0, "reading stopped by an unknown exception");
  }
  result.warnings = std::move(warnings.kept());
  result.warning_count = warnings.count();
  return result;
}

}  // namespace gpufl::log
