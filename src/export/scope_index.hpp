// Which scope instance launched a kernel. A kernel_event names only its scope path, not the thread
// or the instance, and carries its GPU start, not its launch time; so the launching instance is
// taken to be the one of that path that began last at or before the kernel's GPU start (on any
// thread). With one thread per path this is exact; with several threads in the same path at once it
// may pick the wrong one. Memory: 24 bytes per scope instance (scopes are far fewer than kernels in
// the logs we have seen; a session of millions of scopes costs tens of MB).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/event_visitor.hpp"

namespace gpufl::exporter {

struct ScopeInstance {
  int64_t begin_ns = 0;
  uint64_t id = 0;  // ScopeBegin::id
  int64_t tid = 0;
};

class ScopeIndex : public EventVisitor {
 public:
  void onScopeBegin(const ScopeBegin& b) override;
  // Sorts what was gathered; call once before find().
  void seal();
  // nullptr when no instance of `path` began at or before `ts_ns`.
  const ScopeInstance* find(uint32_t path, int64_t ts_ns) const;

 private:
  std::unordered_map<uint32_t, std::vector<ScopeInstance>> by_path_;
};

}  // namespace gpufl::exporter
