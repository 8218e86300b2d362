// Scope aggregation: wall time per scope path from begin/end pairs matched by instance id, and GPU
// time of the kernels and the copies issued under each path, self and inclusive of the paths below
// it. Memory grows with the number of distinct paths and of scopes open at once, not with the
// number of scope instances.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

class ScopeAggregator {
 public:
  void onPath(const ScopePath& p);
  void onBegin(const ScopeBegin& b);
  void onEnd(const ScopeEnd& e);
  // A kernel of `dur_ns` launched under path `path` (0 = outside any scope).
  void onKernel(uint32_t path, int64_t dur_ns);
  // A copy (not a memset) of `bytes` issued under path `path` (0 = outside any scope).
  void onCopy(uint32_t path, uint64_t bytes);
  void finish(ScopeSummary& out) const;

 private:
  struct PathAcc {
    uint32_t parent = 0;
    std::string name;
    bool defined = false;  // a scope_path record was seen
    uint64_t calls = 0;
    int64_t total_ns = 0, max_ns = 0;
    uint64_t kernels = 0;
    int64_t gpu_ns = 0;
    uint64_t copies = 0, copy_bytes = 0;
  };
  struct Open {
    uint32_t path = 0;
    int64_t ts_ns = 0;
  };
  PathAcc& path(uint32_t id);

  std::map<uint32_t, PathAcc> paths_;
  std::unordered_map<uint64_t, Open> open_;  // instance id -> begin
  uint64_t unmatched_ends_ = 0;
  uint64_t kernels_outside_ = 0;
  int64_t gpu_outside_ns_ = 0;
};

}  // namespace gpufl::report
