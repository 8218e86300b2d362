#include "report/model/report_model.hpp"

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

}  // namespace gpufl::report
