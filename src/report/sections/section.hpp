// A report section as one unit: what it shows in the text report, what it puts in the JSON report,
// and, when the shared model (model/report_model.hpp) does not hold what it needs, its own
// aggregation of the session's records. Every section is listed once, in sections/section_list.hpp;
// renderText and renderJson walk that list, and nothing else names the sections.
//
// Adding a section (docs/architecture.md, "Adding a report section"): one file in this folder that
// defines `const Section kName = {...}` in namespace gpufl::report::sections, and one line
// `S(kName)` in section_list.hpp where it belongs in the text report.
#pragma once

#include <memory>
#include <string_view>

#include "report/json/json_writer.hpp"
#include "report/json/report_json.hpp"
#include "report/model/report_model.hpp"
#include "report/model/report_options.hpp"
#include "report/model/section_data.hpp"
#include "report/text/format.hpp"
#include "report/text/text_out.hpp"

namespace gpufl::report {

struct Section {
  // Lower-case, unique: how tests and error messages name the section ("kernels", "transfers").
  std::string_view name;

  // The text report: the section's lines, banner included. renderText writes one blank line before
  // each section it renders, and none after the last. nullptr: the section has no text.
  void (*text)(TextOut& out, const Report& r, const ReportOptions& options) = nullptr;
  // Whether the text report shows the section at all for this report (no banner, no blank line
  // when false). nullptr: always.
  bool (*in_text)(const Report& r) = nullptr;

  // The JSON report: the section's keys (one or more, or none for this report) in the report's
  // top-level object, written through the model's field tables (json/model_json.hpp: put). nullptr:
  // the section has no JSON.
  void (*json)(JsonWriter& w, const Report& r, const ReportOptions& options) = nullptr;
  // The name of the section after whose keys the JSON places this section's, when that differs from
  // the text order (empty: list order). Kept for sections whose JSON place predates the list
  // (report_schema 1); a new section leaves it empty.
  std::string_view json_after = {};

  // Only for a section that needs records the shared model does not aggregate: a new collector for
  // one session. It sees every record of the session (EventVisitor: override only the handlers it
  // needs) and, at the end, stores its result in the Report (SectionCollector::finish, usually
  // `r.section_data.set(value)`); the section's text and JSON read it back with
  // `r.section_data.find<T>()`. nullptr: the section reads the model only.
  std::unique_ptr<SectionCollector> (*collector)() = nullptr;
};

// A collector factory for Section::collector: `.collector = collectorOf<IncidentCollector>`.
template <typename C>
std::unique_ptr<SectionCollector> collectorOf() {
  return std::make_unique<C>();
}

}  // namespace gpufl::report
