#include "report/model/report_model.hpp"

#include <cstdio>
#include <string>

namespace gpufl::report {

const ScopeRow* findScopeRow(const ScopeSummary& scopes, uint32_t path) {
  if (path == 0) return nullptr;
  for (const ScopeRow& row : scopes.rows)
    if (row.path == path) return &row;
  return nullptr;
}

std::string scopePathName(const ScopeSummary& scopes, uint32_t path) {
  if (path == 0) return "(no scope)";
  const ScopeRow* row = findScopeRow(scopes, path);
  if (row == nullptr) return "scope #" + std::to_string(path);
  std::string name = row->name;
  for (int depth = row->depth; depth > 0 && (row = findScopeRow(scopes, row->parent)); --depth)
    name = row->name + "/" + name;
  return name;
}

namespace {

// The model names no text helpers (report/text sits beside it): "12.345" (seconds) and "1,234".
std::string secondsText(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e9);
  return text;
}

std::string countText(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

const IncidentView* firstIncident(const Report& r, std::string_view kind) {
  for (const IncidentView& v : r.incidents.incidents)
    if (v.kind == kind) return &v;
  return nullptr;
}

std::string faultedKernelsNote(const Report& r) {
  const IncidentView* fault = firstIncident(r, "cuda_error");
  if (fault == nullptr) return "";
  const uint64_t n = r.incidents.untimed_kernels;
  return "The context faulted at " + secondsText(fault->at_ns) + " s (" +
         (fault->error_name.empty() ? fault->kind : fault->error_name) + "): " +
         (n > 0 ? countText(n) +
                      " kernels of it came from CUPTI without times and are not "
                      "counted here"
                : "kernels of it may come from CUPTI without times and are not counted here") +
         "; the Incidents section lists those in flight.";
}

}  // namespace gpufl::report
