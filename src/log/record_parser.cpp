#include "log/record_parser.hpp"

#include <algorithm>
#include <deque>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "core/record_schema.hpp"
#include "log/kernel_block.hpp"
#include "log/kernel_line.hpp"
#include "log/line_source.hpp"
#include "log/record_fields.hpp"
#include "log/segments.hpp"

namespace gpufl::log {
namespace {

using detail::Outcome;
using detail::RecordContext;
using detail::od::document;
using detail::od::object;
namespace od = detail::od;

static_assert(kLinePadding >= simdjson::SIMDJSON_PADDING, "lines must carry simdjson's padding");

// The reused event's sid is nearly always the one it already holds.
void assignSid(std::string& to, std::string_view sid) {
  if (!detail::sameText(to, sid)) to.assign(sid);
}

bool isBlank(std::string_view s) {
  for (const char c : s)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

// True when the whole document has been consumed (simdjson 3.0 has no document::at_end()).
bool atEnd(document& doc) {
  return doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

// Opens `text` as a JSON object and finds its type. On failure `why` says what is wrong with the
// line.
bool openRecord(od::parser& parser, std::string_view text, document& doc, object& obj,
                std::string_view& type, std::string& why) {
  simdjson::error_code e =
      parser.iterate(text.data(), text.size(), text.size() + kLinePadding).get(doc);
  if (!e) e = doc.get_object().get(obj);
  if (e) {
    why = e == simdjson::INCORRECT_TYPE
              ? "not a JSON object"
              : std::string("invalid JSON (") + simdjson::error_message(e) + ")";
    return false;
  }
  od::raw_json_string raw_type;
  e = obj.find_field_unordered("type").get_raw_json_string().get(raw_type);
  if (!e) type = detail::rawText(raw_type);
  if (!e) e = obj.reset().error();
  if (e == simdjson::NO_SUCH_FIELD)
    why = "record has no 'type' field";
  else if (e == simdjson::INCORRECT_TYPE)
    why = "field 'type' not a string";
  else if (e)
    why = std::string("invalid JSON (") + simdjson::error_message(e) + ")";
  return !e;
}

}  // namespace

void WarningList::add(std::string_view file, uint64_t line, std::string message) {
  ++count_;
  if (kept_.size() < max_)
    kept_.push_back(ReadWarning{std::string(file), line, std::move(message)});
}

struct RecordDecoder::Impl {
  Impl(std::string s, EventVisitor& v, WarningList& w)
      : sid(std::move(s)), visitor(v), warnings(w) {}

  std::string sid;
  EventVisitor& visitor;
  WarningList& warnings;
  od::parser parser;
  std::string file;
  uint64_t delivered = 0;
  uint64_t damaged_lines = 0, lost_kernels = 0;  // see RecordDecoder::damagedLines

  // Separation of sessions that share `sid` (empty session_id: none). `owner` is whose records of
  // the sid the current channel carries at this point.
  enum class Owner { Unknown, Chosen, Other };
  std::string session_id;
  std::string channel;
  Owner owner = Owner::Unknown;
  uint64_t unattributed = 0;  // in the current file

  // The kernel chain of `sid` in the current file. After a lost line (`lost_line`) the chain is not
  // trusted: the kernel events that follow wait in `pending` with their differences until a resync
  // point (an absolute record that also gives its differences, or a kernel_chain record) fixes the
  // position of the last of them; the differences, walked backwards, place the rest. Events between
  // two lost lines with no resync point between them cannot be placed and are skipped.
  struct Pending {
    KernelEvent event;  // every field but the position
    int64_t dt = 0, dcorr = 0, dur = 0;
    bool deliver = false;  // false: a record with a field error, kept only for its differences
    uint64_t line = 0;
  };
  static constexpr size_t kMaxPending =
      4 * 1024;  // bounds memory; the writer resyncs every 1024 kernels
  bool trusted = false;
  int64_t prev_start = 0;
  uint64_t prev_corr = 0;
  uint64_t lost_line = 0;
  std::deque<Pending> pending;
  uint64_t gap_count = 0, gap_first_line = 0;

  // Kernel ids: defined by kernel_def, used by kernel events. An event that names an id before its
  // definition, or one never defined, used to read without a word (and `gpufl cat`, which names
  // kernels as it goes, and the report, which names them at the end, disagreed): each id's first
  // such use is kept with its file and line, and warned about at the definition or at the end.
  static constexpr uint32_t kDenseIds = 1u << 20;  // ids below: a flag each; above: a set
  static constexpr size_t kTrackedUses = 256;      // ids whose first undefined use is kept
  struct FirstUse {
    std::string file;
    uint64_t line = 0;
    uint64_t order = 0;  // warnings come in reading order
  };
  std::vector<uint8_t> defined_dense;
  std::unordered_set<uint32_t> defined_sparse;
  std::unordered_map<uint32_t, FirstUse> undefined_uses;
  uint64_t untracked_uses = 0;  // uses of undefined ids past kTrackedUses ids
  uint64_t use_order = 0;

  bool isDefined(uint32_t id) const {
    return id < kDenseIds ? id < defined_dense.size() && defined_dense[id] != 0
                          : defined_sparse.count(id) != 0;
  }
  void useKernel(uint32_t id, uint64_t line) {
    if (isDefined(id) || undefined_uses.count(id)) return;
    if (undefined_uses.size() < kTrackedUses)
      undefined_uses.emplace(id, FirstUse{file, line, use_order++});
    else
      ++untracked_uses;
  }
  void defineKernel(uint32_t id, uint64_t line) {
    if (id < kDenseIds) {
      if (id >= defined_dense.size())
        defined_dense.resize(std::max<size_t>(id + 1, 2 * defined_dense.size()));
      defined_dense[id] = 1;
    } else {
      defined_sparse.insert(id);
    }
    const auto it = undefined_uses.find(id);
    if (it == undefined_uses.end()) return;
    warnings.add(it->second.file, it->second.line,
                 "kernel_event: kernel id " + std::to_string(id) +
                     " is used before its kernel_def (" + file + ":" + std::to_string(line) + ")");
    undefined_uses.erase(it);
  }
  void endRead() {
    std::vector<std::pair<const uint32_t, FirstUse>*> uses;
    for (auto& entry : undefined_uses) uses.push_back(&entry);
    std::sort(uses.begin(), uses.end(),
              [](const auto* a, const auto* b) { return a->second.order < b->second.order; });
    for (const auto* use : uses)
      warnings.add(use->second.file, use->second.line,
                   "kernel_event: kernel id " + std::to_string(use->first) +
                       " has no kernel_def in the session (first used here)");
    if (untracked_uses > 0)
      warn(0, std::to_string(untracked_uses) +
                  " more kernel events name kernel ids without a "
                  "kernel_def");
    undefined_uses.clear();
    untracked_uses = 0;
  }

  // Monotonic times are never negative: such a value (INT64_MIN from a broken writer or a crafted
  // line) is kept but said.
  void negativeTime(std::string_view type, const char* field, int64_t value, uint64_t line) {
    warn(line, std::string(type) + ": field '" + field + "' is negative (" + std::to_string(value) +
                   " ns): not a time on the monotonic clock");
  }
  template <typename Event>
  void checkTimes(const Event& e, uint64_t line) {
    if constexpr (requires { e.start_ns; })
      if (e.start_ns < 0) negativeTime(schema::Schema<Event>::type, "start_ns", e.start_ns, line);
    if constexpr (requires { e.ts_ns; })
      if (e.ts_ns < 0) negativeTime(schema::Schema<Event>::type, "ts_ns", e.ts_ns, line);
  }

  // Every kernel event goes to the visitor here. `line`: where it was read.
  void deliverKernel(const KernelEvent& ev, uint64_t line, bool check_time = true) {
    useKernel(ev.def_id, line);
    if (check_time && ev.start_ns < 0)
      negativeTime(schema::Schema<KernelEvent>::type, "start_ns", ev.start_ns, line);
    visitor.onKernel(ev);
    ++delivered;
  }

  KernelEvent kernel;                      // reused: the hot path allocates nothing per event
  std::string block_encoding, block_data;  // kernel_block fields, reused
  std::vector<KernelEvent> block_events;
  // Kernel events in the writer's layout are read by detail::scanWriterKernelLine, the rest by
  // simdjson (off only to compare the two in tests).
  bool writer_fast_path = true;
  uint64_t fast_lines = 0;

  // The fields of `kernel` that a kernel_event line may leave out.
  void resetKernel() {
    kernel.def_id = kernel.stream = kernel.scope_path = kernel.stack_id = kernel.graph_id = 0;
    kernel.instrumented = false;
  }

  void warn(uint64_t line, std::string message) { warnings.add(file, line, std::move(message)); }

  // A line of the chosen session (or of no known one) that could not be used.
  void damaged(uint64_t line, std::string message) {
    ++damaged_lines;
    warn(line, std::move(message));
  }

  void garbage(uint64_t line, bool terminated, std::string why) {
    damaged(line, terminated ? std::move(why) : "truncated last line (no newline): " + why);
    loseChain(line);
  }

  void flushGap(std::string_view how) {
    if (gap_count == 0) return;
    lost_kernels += gap_count;
    warn(gap_first_line, "kernel_event: " + std::to_string(gap_count) + " kernel events skipped " +
                             std::string(how));
    gap_count = 0;
  }

  void countSkipped(const Pending& p) {
    if (p.deliver && gap_count++ == 0) gap_first_line = p.line;
  }

  void skipPending(std::string_view how) {
    for (const Pending& p : pending) countSkipped(p);
    pending.clear();
    flushGap(how);
  }

  // A line that may have been one of the chain's kernel events could not be used.
  void loseChain(uint64_t line) {
    if (!pending.empty())
      skipPending("between lost lines " + std::to_string(lost_line) + " and " +
                  std::to_string(line) + " (no resync point between them)");
    trusted = false;
    lost_line = line;
  }

  void pushPending(Pending p) {
    if (pending.size() == kMaxPending) {
      countSkipped(pending.front());
      pending.pop_front();
    }
    pending.push_back(std::move(p));
  }

  // The last pending event started at `start` with correlation id `corr`: places and delivers them
  // all.
  void placePending(int64_t start, uint64_t corr, uint64_t line) {
    for (auto it = pending.rbegin(); it != pending.rend(); ++it) {
      it->event.start_ns = start;
      it->event.correlation_id = corr;
      start = detail::wrapAdd(start, static_cast<int64_t>(0 - static_cast<uint64_t>(it->dt)));
      corr -= static_cast<uint64_t>(it->dcorr);
    }
    for (Pending& p : pending) {
      if (!p.deliver) continue;
      p.event.end_ns = detail::wrapAdd(p.event.start_ns, p.dur);
      deliverKernel(p.event, p.line);
    }
    pending.clear();
    flushGap("until resync at line " + std::to_string(line));  // those that overflowed `pending`
  }

  // A resync point: the kernel it describes started at `start` with `corr`; `prev_*` are the
  // position of the kernel before it when it gives its differences.
  void resync(int64_t start, uint64_t corr, bool placed_before, int64_t before_start,
              uint64_t before_corr, uint64_t line) {
    if (!pending.empty()) {
      if (placed_before)
        placePending(before_start, before_corr, line);
      else
        skipPending("until resync at line " + std::to_string(line));
    }
    flushGap("until resync at line " + std::to_string(line));
    prev_start = start;
    prev_corr = corr;
    trusted = true;
  }

  // Final verdict on a parsed record: true when it is to be delivered; otherwise warns as needed.
  bool accept(RecordContext& c, document& doc, uint64_t line, bool terminated) {
    if ((c.outcome() == Outcome::Ok || c.outcome() == Outcome::FieldError) && !atEnd(doc))
      c.syntax(simdjson::TRAILING_CONTENT);
    if (c.outcome() == Outcome::Ok && !c.haveSid()) c.fieldError("sid", "missing");
    switch (c.outcome()) {
      case Outcome::Ok:
        return true;
      case Outcome::OtherSession:
        return false;
      case Outcome::Syntax:
        garbage(line, terminated, c.message());
        return false;
      case Outcome::FieldError:
        damaged(line, c.message());
        return false;
    }
    return false;
  }

  // A record read by its parseRecord (record_types.cpp) and delivered to its visitor handler.
  template <typename Event>
  void deliver(Event& event, object& obj, RecordContext& c, document& doc, uint64_t line,
               bool terminated) {
    detail::parseRecord(obj, c, event);
    if (!accept(c, doc, line, terminated)) return;
    event.sid.assign(c.sid());
    checkTimes(event, line);
    if constexpr (std::is_same_v<Event, KernelDef>) defineKernel(event.id, line);
    visit(visitor, event);
    ++delivered;
  }

  // The decoder of record type T: deliver(), except for the kernel chain and session_start (which
  // decides whose records a shared sid's channel carries).
  template <typename T>
  void decode(object& obj, RecordContext& c, document& doc, uint64_t line, bool terminated) {
    if constexpr (std::is_same_v<T, KernelEvent>) {
      decodeKernel(obj, c, doc, line, terminated);
    } else if constexpr (std::is_same_v<T, SessionStart>) {
      decodeSessionStart(obj, c, doc, line, terminated);
    } else {
      T event;
      deliver(event, obj, c, doc, line, terminated);
    }
  }

  void decodeMemset(object& obj, RecordContext& c, document& doc, uint64_t line, bool terminated) {
    MemcpyEvent event;
    event.is_memset = true;
    deliver(event, obj, c, doc, line, terminated);
  }

  using Decode = void (Impl::*)(object&, RecordContext&, document&, uint64_t, bool);
  // The decoder of a record's "type": every type of core/record_list.hpp, memset_event (a
  // MemcpyEvent) and kernel_chain (not an event); nullptr for a type this reader does not know.
  // The most frequent types are looked up first (they repeat in the list; the later entry is never
  // reached).
  template <typename T>
  static constexpr std::pair<std::string_view, Decode> entry() {
    return {schema::Schema<T>::type, &Impl::decode<T>};
  }
  static Decode decoderOf(std::string_view type) {
#define GFL_DECODER_ENTRY_(T, type_, channel, on) entry<T>(),
    static constexpr std::pair<std::string_view, Decode> kTypes[] = {
        entry<KernelEvent>(),
        entry<ScopeBegin>(),
        entry<ScopeEnd>(),
        entry<MemcpyEvent>(),
        GFL_RECORDS(GFL_DECODER_ENTRY_){"memset_event", &Impl::decodeMemset},
        {"kernel_chain", &Impl::decodeChain},
        {kKernelBlockType, &Impl::decodeBlock},
    };
#undef GFL_DECODER_ENTRY_
    for (const auto& [name, decode] : kTypes)
      if (name == type) return decode;
    return nullptr;
  }

  void decodeKernel(object& obj, RecordContext& c, document& doc, uint64_t line, bool terminated);
  // The part of a kernel_event's decoding that follows reading its fields, whichever reader did.
  void chainKernel(RecordContext& c, const detail::KernelFields& f, uint64_t line);
  bool decodeWriterKernel(std::string_view text, uint64_t line);
  // The sid `want` of records read while their channel's session is not (yet) the chosen one.
  std::string_view wantedSid(bool separating) const {
    // A sid never contains a raw newline, so this matches nothing.
    constexpr std::string_view kNoSid = "\n";
    return separating ? kNoSid : std::string_view(sid);
  }
  void countUnattributed(bool separating, const RecordContext& c) {
    if (separating && owner == Owner::Unknown && c.outcome() == Outcome::OtherSession &&
        c.sid() == sid)
      ++unattributed;
  }
  void decodeSessionStart(object& obj, RecordContext& c, document& doc, uint64_t line,
                          bool terminated);
  void decodeChain(object& obj, RecordContext& c, document& doc, uint64_t line, bool terminated);
  void decodeBlock(object& obj, RecordContext& c, document& doc, uint64_t line, bool terminated);
  void decodeLine(std::string_view text, uint64_t line, bool terminated);
};

void RecordDecoder::Impl::decodeKernel(object& obj, RecordContext& c, document& doc, uint64_t line,
                                       bool terminated) {
  KernelEvent& ev = kernel;
  resetKernel();
  detail::KernelFields f;
  detail::forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "k")
      f.k = c.number(v, key, ev.def_id);
    else if (key == "dt_ns")
      f.have_dt = c.number(v, key, f.dt);
    else if (key == "dcorr")
      f.have_dcorr = c.number(v, key, f.dcorr);
    else if (key == "dur_ns")
      f.have_dur = c.number(v, key, f.dur);
    else if (key == "stream")
      c.number(v, key, ev.stream);
    else if (key == "scope")
      c.number(v, key, ev.scope_path);
    else if (key == "start_ns")
      f.have_start = c.number(v, key, f.start);
    else if (key == "corr")
      f.have_corr = c.number(v, key, f.corr);
    else if (key == "end_ns")
      f.have_end = c.number(v, key, f.end);
    else if (key == "stack")
      c.number(v, key, ev.stack_id);
    else if (key == "graph")
      c.number(v, key, ev.graph_id);
    else if (key == "instr")
      c.boolean(v, key, ev.instrumented);
  });
  accept(c, doc, line, terminated);  // warns about syntax and field errors
  chainKernel(c, f, line);
}

void RecordDecoder::Impl::chainKernel(RecordContext& c, const detail::KernelFields& f,
                                      uint64_t line) {
  KernelEvent& ev = kernel;
  const Outcome outcome = c.outcome();
  if (outcome == Outcome::OtherSession) return;
  // A line we could not read or attribute may have been one of our kernel events.
  if (outcome == Outcome::Syntax || !c.haveSid()) return loseChain(line);
  // The record is ours; a field error in it has been reported, but its position still moves the
  // chain.
  const bool absolute = f.have_start && f.have_corr, differences = f.have_dt && f.have_dcorr;
  if (!absolute && !differences) {
    if (outcome == Outcome::Ok) {
      c.fieldError(f.have_start ? "corr" : f.have_dt ? "dcorr" : "start_ns", "missing");
      damaged(line, c.message());
    }
    return loseChain(line);
  }
  // Checked apart from the position so that a bad duration loses one event, not the chain.
  bool deliver = outcome == Outcome::Ok;
  if (deliver) {
    if (f.dur < 0) c.fieldError("dur_ns", "is negative");
    const bool have_dur = f.have_dur || (f.have_end && absolute);
    if (!f.k || !have_dur) c.require({{"k", f.k}, {"dur_ns", have_dur}});
    if (c.outcome() != Outcome::Ok) {
      damaged(line, c.message());
      deliver = false;
    }
  }
  if (absolute) {
    resync(f.start, f.corr, differences,
           detail::wrapAdd(f.start, static_cast<int64_t>(0 - static_cast<uint64_t>(f.dt))),
           f.corr - static_cast<uint64_t>(f.dcorr), line);
  } else if (!trusted) {
    assignSid(ev.sid, c.sid());
    return pushPending(Pending{ev, f.dt, f.dcorr, f.dur, deliver, line});
  } else {
    prev_start = detail::wrapAdd(prev_start, f.dt);
    prev_corr +=
        static_cast<uint64_t>(f.dcorr);  // two's complement: a negative difference wraps back
  }
  if (!deliver) return;
  assignSid(ev.sid, c.sid());
  ev.start_ns = prev_start;
  ev.end_ns = f.have_dur ? detail::wrapAdd(prev_start, f.dur) : f.end;
  ev.correlation_id = prev_corr;
  deliverKernel(ev, line);
}

// kernel_chain: where the chain of the session stood at the end of the file's kernels (the writer
// adds it before a file ends). Not an event: it only places pending kernel events.
void RecordDecoder::Impl::decodeChain(object& obj, RecordContext& c, document& doc, uint64_t line,
                                      bool terminated) {
  int64_t start = 0;
  uint64_t corr = 0;
  bool have_start = false, have_corr = false;
  detail::forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "start_ns")
      have_start = c.number(v, key, start);
    else if (key == "corr")
      have_corr = c.number(v, key, corr);
  });
  c.require({{"start_ns", have_start}, {"corr", have_corr}});
  if (!accept(c, doc, line, terminated)) return;
  resync(start, corr, true, start, corr, line);
}

// kernel_block: many kernel events in one line (kernel_block.hpp), each with its absolute position,
// so the line chain of kernel_event records is left as it is.
void RecordDecoder::Impl::decodeBlock(object& obj, RecordContext& c, document& doc, uint64_t line,
                                      bool terminated) {
  uint64_t n = 0;
  bool have_n = false, have_enc = false, have_data = false;
  detail::forEachField(obj, c, [&](std::string_view key, od::value& v) {
    if (key == "n")
      have_n = c.number(v, key, n);
    else if (key == "enc")
      have_enc = c.string(v, key, block_encoding);
    else if (key == "data")
      have_data = c.string(v, key, block_data);
  });
  c.require({{"n", have_n}, {"enc", have_enc}, {"data", have_data}});
  if (c.outcome() == Outcome::Ok && block_encoding != kKernelBlockEncoding)
    c.fieldError("enc", "is not " + std::string(kKernelBlockEncoding));
  if (!accept(c, doc, line, terminated)) return;
  if (std::string why = decodeKernelBlock(block_data, n, block_events); !why.empty()) {
    lost_kernels += n;
    return damaged(line, "kernel_block: field 'data': " + why + "; its " + std::to_string(n) +
                             " kernel events are lost");
  }
  bool times_checked = false;  // one warning for a block, not one per event
  for (KernelEvent& ev : block_events) {
    assignSid(ev.sid, c.sid());
    deliverKernel(ev, line, !times_checked);
    times_checked = times_checked || ev.start_ns < 0;
  }
}

void RecordDecoder::Impl::decodeSessionStart(object& obj, RecordContext& c, document& doc,
                                             uint64_t line, bool terminated) {
  SessionStart event;
  detail::parseRecord(obj, c, event);
  const bool ok = accept(c, doc, line, terminated);
  if (!session_id.empty() && c.haveSid() && c.sid() == sid)
    owner = !ok ? Owner::Unknown : event.session_id == session_id ? Owner::Chosen : Owner::Other;
  if (!ok || owner == Owner::Other) return;
  event.sid.assign(c.sid());
  checkTimes(event, line);
  visitor.onSessionStart(event);
  ++delivered;
}

// The fast path: a kernel_event in the writer's layout (kernel_line.hpp), decoded as decodeKernel
// would, without simdjson. False: the line is left to decodeLine's full parse.
bool RecordDecoder::Impl::decodeWriterKernel(std::string_view text, uint64_t line) {
  detail::KernelFields f;
  std::string_view line_sid;
  resetKernel();
  if (!detail::scanWriterKernelLine(text, line_sid, f, kernel)) return false;
  ++fast_lines;
  const bool separating = !session_id.empty() && owner != Owner::Chosen;
  RecordContext c(schema::Schema<KernelEvent>::type, wantedSid(separating));
  c.setSid(line_sid);
  chainKernel(c, f, line);  // the line is valid JSON with well-typed fields: nothing for accept()
  countUnattributed(separating, c);
  return true;
}

void RecordDecoder::Impl::decodeLine(std::string_view text, uint64_t line, bool terminated) {
  if (writer_fast_path && decodeWriterKernel(text, line)) return;
  if (isBlank(text)) return;  // blank lines carry nothing; the writer never loses a record to one
  document doc;
  object obj;
  std::string_view type;
  std::string why;
  if (!openRecord(parser, text, doc, obj, type, why))
    return garbage(line, terminated, std::move(why));
  const Decode decode = decoderOf(type);
  if (!decode) return;  // a newer writer's record: skipped silently
  // While the sid belongs to another session (or to none yet), its records read as another
  // session's.
  const bool separating =
      !session_id.empty() && decode != &Impl::decode<SessionStart> && owner != Owner::Chosen;
  RecordContext c(type, wantedSid(separating));
  (this->*decode)(obj, c, doc, line, terminated);
  countUnattributed(separating, c);
}

RecordDecoder::RecordDecoder(std::string sid, EventVisitor& visitor, WarningList& warnings)
    : impl_(std::make_unique<Impl>(std::move(sid), visitor, warnings)) {}
RecordDecoder::~RecordDecoder() = default;

void RecordDecoder::separateBySessionId(std::string session_id) {
  impl_->session_id = std::move(session_id);
}

void RecordDecoder::beginFile(const std::string& file) {
  const std::string_view channel = channelOfPath(file);
  if (channel != impl_->channel) impl_->owner = Impl::Owner::Unknown;
  impl_->channel.assign(channel);
  impl_->unattributed = 0;
  impl_->file = file;
  impl_->trusted = false;  // every segment starts with an absolute kernel record
  impl_->lost_line = 0;
  impl_->pending.clear();
  impl_->gap_count = 0;
}

void RecordDecoder::decodeLine(std::string_view text, uint64_t line_no, bool terminated) {
  impl_->decodeLine(text, line_no, terminated);
}

void RecordDecoder::lostLine(uint64_t line_no, std::string message) {
  impl_->damaged(line_no, std::move(message));
  impl_->loseChain(line_no);
}

void RecordDecoder::endFile() {
  impl_->skipPending("until resync (no resync before the end of the file)");
  if (impl_->unattributed > 0)
    impl_->warn(0, std::to_string(impl_->unattributed) + " records of sid '" + impl_->sid +
                       "' before any session_start in this channel skipped: more than one session "
                       "has that sid");
  impl_->unattributed = 0;
}

uint64_t RecordDecoder::delivered() const {
  return impl_->delivered;
}

void RecordDecoder::endRead() {
  impl_->endRead();
}

uint64_t RecordDecoder::damagedLines() const {
  return impl_->damaged_lines;
}

uint64_t RecordDecoder::lostKernels() const {
  return impl_->lost_kernels;
}

void RecordDecoder::useWriterFastPath(bool on) {
  impl_->writer_fast_path = on;
}

uint64_t RecordDecoder::fastPathLines() const {
  return impl_->fast_lines;
}

struct SessionProbe::Impl {
  od::parser parser;
};

SessionProbe::SessionProbe() : impl_(std::make_unique<Impl>()) {}
SessionProbe::~SessionProbe() = default;

bool SessionProbe::sessionStart(std::string_view text, SessionListing* out) {
  document doc;
  object obj;
  std::string_view type;
  std::string why;
  if (!openRecord(impl_->parser, text, doc, obj, type, why) || type != "session_start")
    return false;
  RecordContext c(type, "");
  SessionStart start;
  detail::parseRecord(obj, c, start);
  if (c.outcome() != Outcome::Ok || !c.haveSid() || !atEnd(doc)) return false;
  *out = SessionListing{std::string(c.sid()), start.session_id, start.app, start.start_ns,
                        start.start_unix_ns};
  return true;
}

std::string SessionProbe::sidOf(std::string_view text) {
  document doc;
  object obj;
  std::string_view type;
  std::string why;
  od::raw_json_string raw;
  if (!openRecord(impl_->parser, text, doc, obj, type, why)) return {};
  if (obj.find_field_unordered("sid").get_raw_json_string().get(raw)) return {};
  return std::string(detail::rawText(raw));
}

}  // namespace gpufl::log
