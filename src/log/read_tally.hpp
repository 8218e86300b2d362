// What readInputs learns about the chosen session while delivering it, to tell what was lost: the
// records of the kinds session_end counts, session_end's own counts, and how many session_starts
// were delivered (so that a caller can tell in which input the session began).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/event_visitor.hpp"
#include "log/reader.hpp"

namespace gpufl::log {

class ReadTally final : public ForwardingVisitor {
 public:
  explicit ReadTally(EventVisitor& next) : ForwardingVisitor(next) {}

  void onSessionStart(const SessionStart& e) override {
    ++starts_;
    next_.onSessionStart(e);
  }
  // Every channel ends with a copy of the same totals; the largest tolerates a copy cut short.
  void onSessionEnd(const SessionEnd& e) override {
    have_written_ = true;
    written_.kernels = std::max(written_.kernels, e.kernels);
    written_.memcpys = std::max(written_.memcpys, e.memcpys);
    written_.scopes = std::max(written_.scopes, e.scopes);
    next_.onSessionEnd(e);
  }
  void onKernel(const KernelEvent& e) override {
    ++read_.kernels;
    next_.onKernel(e);
  }
  void onMemcpy(const MemcpyEvent& e) override {
    ++read_.memcpys;
    next_.onMemcpy(e);
  }
  void onScopeBegin(const ScopeBegin& e) override {
    ++read_.scopes;
    next_.onScopeBegin(e);
  }

  uint64_t starts() const { return starts_; }
  bool haveWritten() const { return have_written_; }
  const RecordCounts& written() const { return written_; }
  const RecordCounts& read() const { return read_; }

 private:
  uint64_t starts_ = 0;
  bool have_written_ = false;
  RecordCounts written_, read_;
};

}  // namespace gpufl::log
