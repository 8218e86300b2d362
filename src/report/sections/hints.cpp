// Section "Hints": what stood out in the session, most important first (computed with the model:
// aggregate/hints.cpp).
#include "report/sections/section.hpp"

namespace gpufl::report::sections {
namespace {

void writeText(TextOut& out, const Report& r, const ReportOptions&) {
  out.banner("Hints");
  if (r.hints.empty()) {
    out.line("  No hints: nothing stood out.");
    return;
  }
  for (const Hint& h : r.hints) out.wrapped(h.text, kRuleWidth, "  * ", "    ");
}

void writeJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  json::put(w, "hints", r.hints, r);
}

}  // namespace

extern const Section kHints = {.name = "hints", .text = writeText, .json = writeJson};

}  // namespace gpufl::report::sections
