#include "export/timeline_export.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "export/deep_summary.hpp"
#include "export/scope_index.hpp"
#include "export/timeline_builder.hpp"
#include "log/line_source.hpp"
#include "log/reader.hpp"
#include "log/record_parser.hpp"
#include "log/session_reader.hpp"

namespace gpufl::exporter {
namespace {

// Sends each event to two visitors.
class Tee : public ForwardingVisitor {
 public:
  Tee(EventVisitor& a, EventVisitor& b) : ForwardingVisitor(a), b_(b) {}
  void onSessionStart(const SessionStart& e) override {
    next_.onSessionStart(e), b_.onSessionStart(e);
  }
  void onScopeBegin(const ScopeBegin& e) override { next_.onScopeBegin(e), b_.onScopeBegin(e); }
  void onScopeEnd(const ScopeEnd& e) override { next_.onScopeEnd(e), b_.onScopeEnd(e); }
  void onSassMetric(const SassMetric& e) override { next_.onSassMetric(e), b_.onSassMetric(e); }
  void onPcSample(const PcSample& e) override { next_.onPcSample(e), b_.onPcSample(e); }

 private:
  EventVisitor& b_;
};

// Remembers what session_start said.
class StartWatcher : public EventVisitor {
 public:
  void onSessionStart(const SessionStart& s) override {
    if (!seen) start = s;
    seen = true;
  }
  bool seen = false;
  SessionStart start;
};

// Counts what was exported.
class Counter : public ForwardingVisitor {
 public:
  Counter(EventVisitor& next, ExportedSession& s) : ForwardingVisitor(next), s_(s) {}
  void onKernel(const KernelEvent& e) override { ++s_.kernels, next_.onKernel(e); }
  void onMemcpy(const MemcpyEvent& e) override { ++s_.copies, next_.onMemcpy(e); }
  void onScopeBegin(const ScopeBegin& e) override { ++s_.scopes, next_.onScopeBegin(e); }
  void onGpuSample(const GpuSample& e) override { ++s_.samples, next_.onGpuSample(e); }
  void onHostSample(const HostSample& e) override { ++s_.samples, next_.onHostSample(e); }

 private:
  ExportedSession& s_;
};

// Reads the chosen session from some channels of a prefix; reader warnings go to `warnings`.
log::ReadResult readChannels(const std::string& prefix, std::initializer_list<Channel> channels,
                             const std::string& sid, EventVisitor& visitor,
                             std::vector<std::string>* warnings) {
  std::vector<std::string> inputs;
  for (Channel c : channels) {
    auto files = log::channelFiles(prefix, c);
    inputs.insert(inputs.end(), files.begin(), files.end());
  }
  log::ReadOptions options;
  options.session = sid;
  const log::SourceOpener open = [&](const std::string& name, std::string* error) {
    return log::LineSource::openFile(name, options.max_line_bytes, error);
  };
  log::WarningList list(options.max_warnings);
  log::ReadResult result;
  log::readInputs(inputs, open, options, visitor, list, result);
  // A pass over some channels reads only part of what session_end counts: that comparison is made
  // over all passes by the caller, not here.
  if (warnings)
    for (const log::ReadWarning& w : list.kept())
      if (w.message.find("session_end counts") == std::string::npos)
        warnings->push_back(log::formatWarning(w));
  return result;
}

}  // namespace

TimelineExportResult exportTimeline(const std::vector<std::string>& prefixes,
                                    const TimelineExportOptions& options, TimelineSink& sink) {
  TimelineExportResult out;
  const std::string& session = options.session;
  // Choose each prefix's session first: its clock pair decides the offsets.
  struct Chosen {
    std::string prefix;
    log::SessionListing listing;
  };
  std::vector<Chosen> chosen;
  for (const std::string& prefix : prefixes) {
    const auto listings = log::listSessions(prefix);
    const log::SessionListing* pick = nullptr;
    for (const auto& l : listings)
      if (session.empty() || l.sid.starts_with(session.substr(0, 8)) ||
          l.session_id.starts_with(session))
        pick = &l;  // oldest first: the last match is the latest
    if (!pick) {
      out.error = "no session" + (session.empty() ? std::string() : " matching '" + session + "'") +
                  " under '" + prefix + "'";
      return out;
    }
    chosen.push_back({prefix, *pick});
  }
  // Monotonic clocks of different processes (or hosts) share no origin; each session's start pairs
  // its monotonic and wall clocks, so t_wall = t_mono - start_ns + start_unix_ns. Moving every
  // session onto the first one's monotonic axis keeps a lone session's timestamps exactly as
  // logged.
  const int64_t base = chosen[0].listing.start_unix_ns - chosen[0].listing.start_ns;
  std::set<int64_t> used_pids;
  for (uint32_t rank = 0; rank < chosen.size(); ++rank) {
    const Chosen& c = chosen[rank];
    ExportedSession s;
    s.prefix = c.prefix;
    s.sid = c.listing.sid;
    s.offset_ns = (c.listing.start_unix_ns - c.listing.start_ns) - base;

    SessionPlacement placement;
    placement.rank = rank;
    placement.offset_ns = s.offset_ns;
    placement.used_pids = &used_pids;
    placement.compact_kernel_args = options.compact_kernel_args;
    if (chosen.size() > 1) placement.label_suffix = " [rank " + std::to_string(rank) + "]";
    ScopeIndex scopes;
    DeepSummary deep;
    StartWatcher start;
    log::ReadResult scope_read;
    log::RecordCounts written;
    TimelineBuilder builder(sink, placement, &scopes, &deep);
    Counter counted(builder, s);
    {
      Tee both(counted, scopes);
      Tee with_start(both, start);
      scope_read = readChannels(c.prefix, {Channel::Scope}, s.sid, with_start, &out.warnings);
    }
    scopes.seal();
    // Deep records sit at the end of the device channel but belong on every kernel slice: one more
    // pass, only for sessions that ran a deep engine (or whose scope channel did not say).
    if (!start.seen || start.start.engine != Engine::None)
      readChannels(c.prefix, {Channel::Device}, s.sid, deep, nullptr);
    const log::ReadResult device_read =
        readChannels(c.prefix, {Channel::Device, Channel::System}, s.sid, counted, &out.warnings);
    builder.finish();
    for (const log::ReadResult* r : {&std::as_const(scope_read), &device_read})
      if (r->have_written) {
        written.kernels = std::max(written.kernels, r->written.kernels);
        written.memcpys = std::max(written.memcpys, r->written.memcpys);
        written.scopes = std::max(written.scopes, r->written.scopes);
      }
    if (s.kernels < written.kernels || s.copies < written.memcpys || s.scopes < written.scopes)
      out.warnings.push_back(c.prefix + ": session_end says " + std::to_string(written.kernels) +
                             " kernels, " + std::to_string(written.memcpys) + " copies, " +
                             std::to_string(written.scopes) + " scopes were written; exported " +
                             std::to_string(s.kernels) + ", " + std::to_string(s.copies) + ", " +
                             std::to_string(s.scopes) + " (the rest were lost before reading)");
    s.app = start.start.app;
    s.host = start.start.host;
    s.pid = start.start.pid;
    s.shown_pid = builder.shownPid();
    s.out_of_order = builder.outOfOrderSlices();
    if (s.out_of_order)
      out.warnings.push_back(
          c.prefix + ": " + std::to_string(s.out_of_order) +
          " GPU slices arrived too late to be put in start order on their stream");
    if (builder.kernelsWithoutDefinition())
      out.warnings.push_back(
          c.prefix + ": " + std::to_string(builder.kernelsWithoutDefinition()) +
          " kernels name a kernel_def that was not found (exported without name)");
    out.sessions.push_back(std::move(s));
  }
  std::string error;
  out.ok = sink.finish(&error);
  if (!out.ok) out.error = error;
  return out;
}

}  // namespace gpufl::exporter
