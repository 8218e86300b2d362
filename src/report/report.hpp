// The report: events -> aggregates (the model, model/report_model.hpp) -> text or JSON, one section
// at a time (sections/). Pure functions of the log; written once, in C++; the CLI and Python call
// it. docs/architecture.md draws the sub-folders.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "report/aggregate/report_builder.hpp"
#include "report/model/report_model.hpp"
#include "report/model/report_options.hpp"
#include "report/model/section_data.hpp"

namespace gpufl::report {

// Reads `prefix` (one session: latest, or `session` id/prefix) and renders the text report.
ReportOutput reportFromPrefix(const std::string& prefix, const std::string& session,
                              const ReportOptions& options, bool as_json);

// The text report: sections in a fixed order, each saying so in one line when it has no data.
std::string renderText(const Report& report, const ReportOptions& options);
// The same aggregates as one JSON object (pretty-printed, keys in a fixed order, '\n' terminated).
// Durations are integers or decimals in ns, sizes in bytes, percentages 0..100.
std::string renderJson(const Report& report, const ReportOptions& options = {});

// Aggregates one session into a Report: the shared model (ReportBuilder) and what the sections
// collect for themselves (Section::collector). Feed it the session's records, then build(). What
// reportFromPrefix uses; anything that renders records it feeds by hand should use it too, so that
// every section has its data.
class ReportAggregator : public EventVisitor {
 public:
  // The collectors of every section in sections/section_list.hpp.
  explicit ReportAggregator(const BuilderOptions& options = {});
  // These collectors instead (tests).
  ReportAggregator(const BuilderOptions& options,
                   std::vector<std::unique_ptr<SectionCollector>> collectors);
  ~ReportAggregator() override;

  // The visitor to feed: the builder itself when no section collects for itself (no cost per
  // record), else this object, which hands each record to the builder and to every collector.
  EventVisitor& input();
  ReportBuilder& builder() { return builder_; }
  Report build() &&;

#define GFL_REPORT_AGGREGATOR_HANDLER_(T, type, channel, on) void on(const T& e) override;
  GFL_RECORDS(GFL_REPORT_AGGREGATOR_HANDLER_)
#undef GFL_REPORT_AGGREGATOR_HANDLER_

 private:
  ReportBuilder builder_;
  std::vector<std::unique_ptr<SectionCollector>> collectors_;
};

}  // namespace gpufl::report
