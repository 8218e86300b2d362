// reportFromPrefix: the log reader streams one session into a ReportAggregator (the model and the
// sections' collectors), and the sections render it.
#include "report/report.hpp"

#include <cstdio>
#include <utility>

#include "core/event_visitor.hpp"
#include "log/reader.hpp"
#include "report/sections/section_list.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

std::string segmentNumber(uint64_t n) {
  char text[24];
  std::snprintf(text, sizeof text, "%06llu", static_cast<unsigned long long>(n));
  return text;
}

// One phrase per kind of record session_end counts that came up short, then one per missing segment
// range.
std::vector<std::string> logIncomplete(const log::ReadResult& r) {
  std::vector<std::string> phrases;
  const auto compare = [&](const char* what, uint64_t written, uint64_t read) {
    if (!r.have_written || written == read) return;
    phrases.push_back(read < written ? formatCount(written - read) + " of " + formatCount(written) +
                                           " " + what + " written were not read"
                                     : formatCount(read) + " " + what +
                                           " read, but session_end counts " + formatCount(written));
  };
  compare("kernel events", r.written.kernels, r.read.kernels);
  compare("copies", r.written.memcpys, r.read.memcpys);
  compare("scopes", r.written.scopes, r.read.scopes);
  for (const log::MissingSegments& m : r.missing_segments) {
    phrases.push_back(m.channel +
                      (m.first == m.last
                           ? " segment " + segmentNumber(m.first)
                           : " segments " + segmentNumber(m.first) + "-" + segmentNumber(m.last)) +
                      " missing");
  }
  return phrases;
}

// Passes every record on, and reports the count every kProgressRecords records. Counting the
// record kinds that can be numerous is enough for progress; the rare ones pass uncounted.
class CountingVisitor : public ForwardingVisitor {
 public:
  CountingVisitor(EventVisitor& next, const std::function<void(uint64_t)>& report)
      : ForwardingVisitor(next), report_(report) {}
  void onKernel(const KernelEvent& e) override { tick(), next_.onKernel(e); }
  void onMemcpy(const MemcpyEvent& e) override { tick(), next_.onMemcpy(e); }
  void onScopeBegin(const ScopeBegin& e) override { tick(), next_.onScopeBegin(e); }
  void onScopeEnd(const ScopeEnd& e) override { tick(), next_.onScopeEnd(e); }
  void onGpuSample(const GpuSample& e) override { tick(), next_.onGpuSample(e); }
  void onHostSample(const HostSample& e) override { tick(), next_.onHostSample(e); }
  void onSassMetric(const SassMetric& e) override { tick(), next_.onSassMetric(e); }
  void onPcSample(const PcSample& e) override { tick(), next_.onPcSample(e); }
  void onSync(const SyncEvent& e) override { tick(), next_.onSync(e); }
  void onMemory(const MemoryEvent& e) override { tick(), next_.onMemory(e); }

 private:
  void tick() {
    if (++records_ % kProgressRecords == 0) report_(records_);
  }
  const std::function<void(uint64_t)>& report_;
  uint64_t records_ = 0;
};

}  // namespace

ReportAggregator::ReportAggregator(const BuilderOptions& options)
    : ReportAggregator(options, sectionCollectors()) {}

ReportAggregator::ReportAggregator(const BuilderOptions& options,
                                   std::vector<std::unique_ptr<SectionCollector>> collectors)
    : builder_(options), collectors_(std::move(collectors)) {}

ReportAggregator::~ReportAggregator() = default;

EventVisitor& ReportAggregator::input() {
  if (collectors_.empty()) return builder_;
  return *this;
}

#define GFL_REPORT_AGGREGATOR_HANDLER_(T, type, channel, on) \
  void ReportAggregator::on(const T& e) {                    \
    builder_.on(e);                                          \
    for (const auto& c : collectors_) c->on(e);              \
  }
GFL_RECORDS(GFL_REPORT_AGGREGATOR_HANDLER_)
#undef GFL_REPORT_AGGREGATOR_HANDLER_

Report ReportAggregator::build() && {
  Report report = std::move(builder_).build();
  for (const auto& c : collectors_) c->finish(report);
  return report;
}

ReportOutput reportFromPrefix(const std::string& prefix, const std::string& session,
                              const ReportOptions& options, bool as_json) {
  ReportOutput out;
  ReportAggregator aggregator;
  log::ReadOptions read_options;
  read_options.session = session;
  log::ReadResult result;
  if (options.on_progress) {
    CountingVisitor counting(aggregator.input(), options.on_progress);
    result = log::readPrefix(prefix, read_options, counting);
  } else {
    result = log::readPrefix(prefix, read_options, aggregator.input());
  }
  // Why nothing could be read is said once, in `error`; the reader's warning that says the same
  // (no files; no such session, with the sessions there) is not repeated among the warnings.
  std::string session_problem;
  for (const log::ReadWarning& w : result.warnings) {
    if (w.file.empty() && w.line == 0 &&
        (w.message.starts_with("no log files found") ||
         w.message.starts_with("no session matches") || w.message.starts_with("session '"))) {
      session_problem = w.message;
      continue;
    }
    std::string where = w.file;
    if (w.line > 0) {
      where += ':';
      where += std::to_string(w.line);
    }
    out.warnings.push_back(where + ": " + w.message);
  }
  if (result.warning_count > result.warnings.size()) {
    std::string more = "(";
    more += std::to_string(result.warning_count - result.warnings.size());
    out.warnings.push_back(more + " more warnings not shown)");
  }
  if (!result.found_files) {
    out.no_files = true;
    out.error = "no GPU Flight logs found for prefix '" + prefix + "' (expected " + prefix +
                ".device.log, " + prefix + ".scope.log or " + prefix + ".system.log)";
    return out;
  }
  if (!result.any_readable) {
    out.error = !session_problem.empty() ? session_problem
                : session.empty()
                    ? "no readable session under prefix '" + prefix + "'"
                    : "no session matching '" + session + "' under prefix '" + prefix + "'";
    return out;
  }
  aggregator.builder().setReaderWarnings(result.warning_count);
  aggregator.builder().setLogIncomplete(logIncomplete(result));
  Report report = std::move(aggregator).build();
  out.ok = true;
  out.text = as_json ? renderJson(report, options) : renderText(report, options);
  return out;
}

}  // namespace gpufl::report
