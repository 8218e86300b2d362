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

void SessionSink::handle(const GpuSample& e) {
  if (e.gpu >= last_samples_.size()) last_samples_.resize(e.gpu + 1);
  last_samples_[e.gpu] = e;
  forward(e);
}

void SessionSink::handle(const Incident& e) {
  Incident copy = e;
  if (copy.sid.empty()) copy.sid = sid_;
  ensurePath(copy.scope_path);
  for (const InFlightLaunch& l : copy.in_flight) ensurePath(l.scope_path);
  for (const BlockedThread& b : copy.blocked) ensurePath(b.scope_path);
  // The GPU of the suspects is not known here; a process with one GPU (the common case) has it.
  const GpuSample* s = nullptr;
  for (const GpuSample& g : last_samples_)
    if (g.ts_ns != 0 && (s == nullptr || g.ts_ns > s->ts_ns)) s = &g;
  if (s != nullptr && !copy.gpu_sample_age_ns) {
    copy.gpu_mem_used_bytes = s->mem_used_bytes;
    copy.gpu_mem_total_bytes = s->mem_total_bytes;
    copy.gpu_util = s->util_gpu;
    copy.gpu_temp_c = s->temp_c;
    copy.gpu_clk_sm = s->clk_sm;
    copy.gpu_power_mw = s->power_mw;
    copy.gpu_sample_age_ns = copy.ts_ns - s->ts_ns;
  }
  visit(out_, copy);
}

}  // namespace gpufl::runtime
