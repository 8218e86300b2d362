// renderText and renderJson: the sections of sections/section_list.hpp, in order.
#include <string_view>

#include "report/report.hpp"
#include "report/sections/section_list.hpp"

namespace gpufl::report {
namespace {

void header(TextOut& out, const ReportOptions& options) {
  const std::string rule(kRuleWidth, '=');
  out.line(rule);
  out.line(centerText("GPU Flight Session Report", kRuleWidth));
  out.line(centerText("Generated: " + generatedAt(options), kRuleWidth));
  out.line(rule);
}

// Writes `s`'s keys, then those of the sections placed after it (Section::json_after).
void sectionJson(JsonWriter& w, const Section& s, const Report& r, const ReportOptions& options) {
  if (s.json) s.json(w, r, options);
  for (const Section* later : reportSections())
    if (later->json_after == s.name) sectionJson(w, *later, r, options);
}

}  // namespace

std::string renderText(const Report& r, const ReportOptions& options) {
  TextOut out;
  header(out, options);
  for (const Section* s : reportSections()) {
    if (s->text == nullptr || (s->in_text != nullptr && !s->in_text(r))) continue;
    out.line();
    s->text(out, r, options);
  }
  return out.take();
}

std::string renderJson(const Report& r, const ReportOptions& options) {
  JsonWriter w;
  w.beginObject();
  w.field("report_schema", 1);
  w.field("generated_at", generatedAt(options));
  for (const Section* s : reportSections())
    if (s->json_after.empty()) sectionJson(w, *s, r, options);
  w.endObject();
  return w.take();
}

}  // namespace gpufl::report
