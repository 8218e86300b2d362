#include "report/aggregate/report_builder.hpp"

#include <algorithm>

#include "core/checked_math.hpp"
#include "report/aggregate/card_stats.hpp"
#include "report/aggregate/hints.hpp"

namespace gpufl::report {

ReportBuilder::ReportBuilder(const BuilderOptions& options)
    : budget_(options.exact_samples_total), kernels_(options.exact_samples_per_group, &budget_) {}

void ReportBuilder::seen(int64_t ts_ns) {
  if (ts_ns == 0) return;  // not a time
  if (!any_ts_) {
    first_ts_ = last_ts_ = ts_ns;
    any_ts_ = true;
    return;
  }
  first_ts_ = std::min(first_ts_, ts_ns);
  last_ts_ = std::max(last_ts_, ts_ns);
}

void ReportBuilder::onSessionStart(const SessionStart& e) {
  ++records_;
  syncs_.onSessionStart(e);
  memory_.onSessionStart(e);
  // Every channel starts with a copy; only the device channel's lists devices.
  if (!session_.started) {
    session_.started = true;
    session_.sid = e.sid;
    session_.session_id = e.session_id;
    session_.app = e.app;
    session_.host = e.host;
    session_.version = e.version;
    session_.engine = e.engine;
    session_.pid = e.pid;
    session_.start_ns = e.start_ns;
    session_.start_unix_ns = e.start_unix_ns;
  }
  if (session_.devices.empty()) session_.devices = e.devices;
}

void ReportBuilder::onDevice(const DeviceEvent& e) {
  ++records_;
  // A device learned after session_start (gpufl trace): added unless session_start already listed
  // it.
  for (const DeviceInfo& d : session_.devices)
    if (d.id == e.device.id) return;
  session_.devices.push_back(e.device);
}

void ReportBuilder::onSessionEnd(const SessionEnd& e) {
  ++records_;
  // Each channel ends with a copy of the same totals; merging with max tolerates one being cut
  // short.
  end_ns_ = have_end_ ? std::max(end_ns_, e.end_ns) : e.end_ns;
  have_end_ = true;
  for (const auto& [k, v] : e.dropped) collection_.dropped[k] = std::max(collection_.dropped[k], v);
  for (const auto& [k, v] : e.overhead_ns)
    collection_.overhead_ns[k] = std::max(collection_.overhead_ns[k], v);
  collection_.cpu_time_ns = std::max(collection_.cpu_time_ns, e.cpu_time_ns);
  collection_.buffers = std::max(collection_.buffers, e.buffers);
  collection_.bytes_written = std::max(collection_.bytes_written, e.bytes_written);
}

void ReportBuilder::onNote(const Note& e) {
  ++records_;
  seen(e.ts_ns);
  if (collection_.notes.size() < kMaxNotes) collection_.notes.push_back(e);
}

void ReportBuilder::onKernelDef(const KernelDef& e) {
  ++records_;
  kernels_.onDef(e);
  incidents_.onKernelDef(e);
}

void ReportBuilder::onKernel(const KernelEvent& e) {
  ++records_;
  seen(e.start_ns);
  seen(e.end_ns);
  kernels_.onKernel(e);
  scopes_.onKernel(e.scope_path, spanNs(e.start_ns, e.end_ns));
  trace_health_.onKernel(e);
}

void ReportBuilder::onMemcpy(const MemcpyEvent& e) {
  ++records_;
  seen(e.start_ns);
  seen(e.end_ns);
  transfers_.onMemcpy(e);
  if (!e.is_memset) scopes_.onCopy(e.scope_path, e.bytes);
  trace_health_.onMemcpy(e);
}

void ReportBuilder::onSync(const SyncEvent& e) {
  ++records_;
  seen(e.start_ns);
  seen(e.end_ns);
  syncs_.onSync(e);
}

void ReportBuilder::onMemory(const MemoryEvent& e) {
  ++records_;
  seen(e.ts_ns);
  memory_.onMemory(e);
  incidents_.onMemory(e);
}

void ReportBuilder::onScopePath(const ScopePath& e) {
  ++records_;
  scopes_.onPath(e);
}

void ReportBuilder::onScopeBegin(const ScopeBegin& e) {
  ++records_;
  seen(e.ts_ns);
  scopes_.onBegin(e);
}

void ReportBuilder::onScopeEnd(const ScopeEnd& e) {
  ++records_;
  seen(e.ts_ns);
  scopes_.onEnd(e);
}

void ReportBuilder::onGpuSample(const GpuSample& e) {
  ++records_;
  seen(e.ts_ns);
  system_.onGpuSample(e);
  samples_.add(e);
}

void ReportBuilder::onHostSample(const HostSample& e) {
  ++records_;
  seen(e.ts_ns);
  system_.onHostSample(e);
}

void ReportBuilder::onSassMetric(const SassMetric& e) {
  ++records_;
  profile_.onSassMetric(e);
}

void ReportBuilder::onPcSample(const PcSample& e) {
  ++records_;
  profile_.onPcSample(e);
}

void ReportBuilder::onRangeCounters(const RangeCounters& e) {
  ++records_;
  profile_.onRangeCounters(e);
}

void ReportBuilder::onIncident(const Incident& e) {
  ++records_;
  seen(e.ts_ns);
  incidents_.onIncident(e);
}

void ReportBuilder::onHealth(const Health& e) {
  ++records_;
  seen(e.ts_ns);
  trace_health_.onHealth(e);
}

void ReportBuilder::onBenchmark(const BenchmarkResult& e) {
  ++records_;
  if (benchmarks_.size() < kMaxNotes) benchmarks_.push_back(e);
}

Report ReportBuilder::build() & {
  return make(false);
}

Report ReportBuilder::build() && {
  return make(true);
}

Report ReportBuilder::make(bool last) {
  Report r;
  r.session = session_;
  r.session.ended = have_end_;
  if (have_end_) {
    r.session.end_ns = end_ns_;
  } else if (any_ts_) {
    r.session.end_ns = last_ts_;
  }
  if (!r.session.started && any_ts_) r.session.start_ns = first_ts_;
  if (r.session.end_ns < r.session.start_ns) r.session.end_ns = r.session.start_ns;
  r.session.duration_ns = spanNs(r.session.start_ns, r.session.end_ns);

  samples_.sort();
  int warp_size = r.session.devices.empty() ? 32 : r.session.devices.front().warp_size;
  profile_.finish([this](const std::string& f) { return kernels_.readableName(f); }, warp_size,
                  r.profile);
  kernels_.finish(r.session.duration_ns, r.kernels, &samples_, last);
  transfers_.finish(r.transfers);
  syncs_.finish(r.syncs);
  memory_.finish(r.memory);
  system_.finish(r.gpus, r.host);
  scopes_.finish(r.scopes);
  r.benchmarks = benchmarks_;
  r.collection = collection_;
  r.collection.reader_warnings = reader_warnings_;
  r.session.log_incomplete = log_incomplete_;
  r.collection.records = records_;
  incidents_.finish(r);     // reads the model (session, kernel groups, drops): after it is built
  trace_health_.finish(r);  // reads the session, drops and incidents
  addHints(r);
  addCards(r);
  return r;
}

}  // namespace gpufl::report
