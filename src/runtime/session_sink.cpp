#include "runtime/session_sink.hpp"

#include "core/intern.hpp"

namespace gpufl::runtime {

// [writer thread]
bool SessionSink::onScopeRecord(const core::Record& r, const core::ThreadInfo& thread) {
  const core::InternTable& table = core::InternTable::instance();
  if (r.kind == core::RecordKind::ScopeBegin) {
    ensurePath(r.path);
    begin_.sid = sid_;
    begin_.id = r.id;
    begin_.path = r.path;
    begin_.tid = thread.tid;
    begin_.ts_ns = r.ts_ns;
    begin_.name.assign(table.name(r.name));
    begin_.tag.assign(table.name(r.tag));
    begin_.depth = static_cast<int>(r.depth);
    ++scopes_;
    out_.onScopeBegin(begin_);
    return true;
  }
  if (r.kind == core::RecordKind::ScopeEnd) {
    ensurePath(r.path);
    end_.sid = sid_;
    end_.id = r.id;
    end_.path = r.path;
    end_.tid = thread.tid;
    end_.ts_ns = r.ts_ns;
    out_.onScopeEnd(end_);
    return true;
  }
  return false;
}

void SessionSink::ensurePath(uint32_t id) {
  if (id == core::kRootPath) return;
  const core::InternTable& table = core::InternTable::instance();
  if (id >= table.pathCount()) return;  // not an interned path: nothing to describe
  if (id < written_.size() && written_[id]) return;
  chain_.clear();
  for (uint32_t p = id; p != core::kRootPath; p = table.path(p).parent) {
    if (p < written_.size() && written_[p]) break;
    chain_.push_back(p);
  }
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
    const core::PathInfo info = table.path(*it);
    path_.sid = sid_;
    path_.id = *it;
    path_.parent = info.parent;
    path_.name.assign(table.name(info.name));
    path_.depth = static_cast<int>(info.depth);
    if (*it >= written_.size()) written_.resize(*it + 1024, false);
    written_[*it] = true;
    ++paths_written_;
    out_.onScopePath(path_);
  }
}

void SessionSink::handle(const KernelEvent& e) {
  ensurePath(e.scope_path);
  ++kernels_;
  forward(e);
}

void SessionSink::handle(const MemcpyEvent& e) {
  ensurePath(e.scope_path);
  ++memcpys_;
  forward(e);
}

void SessionSink::handle(const ScopePath& e) {
  // Interned paths are described by ensurePath; a collector's own description of one is a
  // duplicate.
  if (e.id >= core::kMaxPaths) return forward(e);  // not ours: pass it on
  if (e.id < written_.size() && written_[e.id]) return;
  if (e.id >= written_.size()) written_.resize(e.id + 1024, false);
  written_[e.id] = true;
  ++paths_written_;
  forward(e);
}

void SessionSink::handle(const ScopeBegin& e) {
  ensurePath(e.path);
  ++scopes_;
  forward(e);
}

void SessionSink::handle(const ScopeEnd& e) {
  ensurePath(e.path);
  forward(e);
}

void SessionSink::handle(const RangeCounters& e) {
  ensurePath(e.path);
  forward(e);
}

}  // namespace gpufl::runtime
