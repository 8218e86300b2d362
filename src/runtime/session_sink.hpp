// Where every event of a session goes on its way to the LogWriter (or a test's visitor). It
// - fills `sid` on events that come without one,
// - writes each scope path (and its ancestors) once, before the first record that uses it: scope
//   records, kernels, copies and range counters all carry path ids, and a path may first appear
//   in any of them,
// - turns per-thread scope records into ScopeBegin/ScopeEnd, resolving interned names,
// - counts what session_end reports (kernels, memcpys, scopes),
// - gives an incident the GPU's state from the latest NVML sample (and writes its scope paths).
// [writer thread]: one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "core/records.hpp"

namespace gpufl::runtime {

// A ForwardingVisitor: an event type it does not handle itself still reaches the log.
class SessionSink final : public ForwardingVisitor {
 public:
  SessionSink(EventVisitor& out, std::string sid)
      : ForwardingVisitor(out), out_(out), sid_(std::move(sid)) {}

  // A ScopeBegin/ScopeEnd record from a thread buffer. Returns false for other kinds.
  bool onScopeRecord(const core::Record& record,
                     const core::ThreadInfo& thread);  // [writer thread]

  // Every handler goes to handle(): the overloads below for the events the sink acts on, forward()
  // for the rest (so a record type added to record_list.hpp is forwarded with its sid filled).
#define GFL_SINK_HANDLER_(T, type, channel, on) \
  void on(const T& e) override {                \
    handle(e);                                  \
  }
  GFL_RECORDS(GFL_SINK_HANDLER_)
#undef GFL_SINK_HANDLER_

  uint64_t kernels() const {
    return kernels_;
  }
  uint64_t memcpys() const {
    return memcpys_;
  }
  uint64_t scopes() const {
    return scopes_;
  }
  uint64_t pathsWritten() const {
    return paths_written_;
  }

 private:
  template <typename E>
  void handle(const E& e) {
    forward(e);
  }
  void handle(const KernelEvent& e);
  void handle(const MemcpyEvent& e);
  void handle(const ScopePath& e);
  void handle(const ScopeBegin& e);
  void handle(const ScopeEnd& e);
  void handle(const RangeCounters& e);
  void handle(const GpuSample& e);
  void handle(const Incident& e);

  template <typename E>
  void forward(const E& e) {
    if (!e.sid.empty()) {
      visit(out_, e);
      return;
    }
    E copy = e;
    copy.sid = sid_;
    visit(out_, copy);
  }
  // Writes path `id` and its unwritten ancestors, outermost first. Unknown ids are left alone.
  void ensurePath(uint32_t id);

  EventVisitor& out_;
  const std::string sid_;
  std::vector<bool> written_;  // by path id
  std::vector<uint32_t> chain_;
  ScopeBegin begin_;  // reused: names keep their capacity
  ScopeEnd end_;
  ScopePath path_;
  std::vector<GpuSample> last_samples_;  // the latest of each GPU: an incident's GPU state
  uint64_t kernels_ = 0, memcpys_ = 0, scopes_ = 0, paths_written_ = 0;
};

}  // namespace gpufl::runtime
