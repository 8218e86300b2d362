#include "session_loader.hpp"

#include <algorithm>

#include "core/demangle.hpp"
#include "core/record_schema.hpp"

namespace gpufl::py {

void StringColumn::push(std::string_view s) {
  if (last_ >= 0 && values[static_cast<size_t>(last_)] == s) {
    codes.push_back(last_);
    return;
  }
  auto it = index_.find(s);
  if (it == index_.end()) {
    const auto code = static_cast<int32_t>(values.size());
    values.emplace_back(s);
    it = index_.emplace(values.back(), code).first;
  }
  last_ = it->second;
  codes.push_back(last_);
}

namespace {

void pushOptionalString(StringColumn& c, const std::string& s) {
  if (s.empty()) {
    c.pushMissing();
  } else {
    c.push(s);
  }
}

}  // namespace

void SessionColumns::onSessionStart(const SessionStart& e) {
  // The device channel's copy carries the devices; the others repeat the rest.
  if (!have_start || (start.devices.empty() && !e.devices.empty())) start = e;
  have_start = true;
  seen(e.start_ns);
}

void SessionColumns::onDevice(const DeviceEvent& e) {
  // A device learned after session_start (gpufl trace); the same device from another segment is not
  // added twice.
  for (const DeviceInfo& d : start.devices)
    if (d.id == e.device.id) return;
  start.devices.push_back(e.device);
}

void SessionColumns::onSessionEnd(const SessionEnd& e) {
  if (!have_end) {
    end = e;
  } else {
    // Each channel writes its own session_end; keep the latest end and the largest counts.
    if (e.end_ns > end.end_ns) end.end_ns = e.end_ns;
    end.kernels = std::max(end.kernels, e.kernels);
    end.memcpys = std::max(end.memcpys, e.memcpys);
    end.scopes = std::max(end.scopes, e.scopes);
    for (const auto& [k, v] : e.dropped) end.dropped[k] = std::max(end.dropped[k], v);
    for (const auto& [k, v] : e.overhead_ns) end.overhead_ns[k] = std::max(end.overhead_ns[k], v);
    end.cpu_time_ns = std::max(end.cpu_time_ns, e.cpu_time_ns);
    end.buffers = std::max(end.buffers, e.buffers);
    end.bytes_written = std::max(end.bytes_written, e.bytes_written);
  }
  have_end = true;
  seen(e.end_ns);
}

void SessionColumns::onNote(const Note& e) {
  notes.push(e);
}

void SessionColumns::onKernelDef(const KernelDef& e) {
  kernel_defs.push(e);
  kernel_short_names.push(readableKernelName(e.name.empty() ? e.demangled : e.name));
}

void SessionColumns::onKernel(const KernelEvent& e) {
  auto& t = kernels;
  t.k.push_back(e.def_id);
  t.stream.push_back(e.stream);
  t.scope.push_back(e.scope_path);
  t.stack.push_back(e.stack_id);
  t.graph.push_back(e.graph_id);
  t.corr.push_back(e.correlation_id);
  t.start_ns.push_back(e.start_ns);
  t.dur_ns.push_back(e.end_ns - e.start_ns);
  t.instr.push_back(e.instrumented ? 1 : 0);
  seen(e.end_ns);
}

void SessionColumns::onMemcpy(const MemcpyEvent& e) {
  auto& t = memcpy;
  t.is_memset.push_back(e.is_memset ? 1 : 0);
  t.kind.push(e.is_memset ? std::string_view("memset") : std::string_view(copyKindName(e.kind)));
  pushOptionalString(t.src_kind, e.src_kind);
  pushOptionalString(t.dst_kind, e.dst_kind);
  t.bytes.push_back(e.bytes);
  t.corr.push_back(e.correlation_id);
  t.device.push_back(e.device);
  t.stream.push_back(e.stream);
  t.scope.push_back(e.scope_path);
  t.start_ns.push_back(e.start_ns);
  t.end_ns.push_back(e.end_ns);
  t.value.push_back(optToDouble(e.value));
  seen(e.end_ns);
}

void SessionColumns::onSync(const SyncEvent& e) {
  auto& t = syncs;
  t.kind.push(syncKindName(e.kind));
  t.stream.push_back(e.stream);
  t.scope.push_back(e.scope_path);
  t.corr.push_back(e.correlation_id);
  t.start_ns.push_back(e.start_ns);
  t.end_ns.push_back(e.end_ns);
  seen(e.end_ns);
}

void SessionColumns::onMemory(const MemoryEvent& e) {
  auto& t = memory;
  t.is_free.push_back(e.is_free ? 1 : 0);
  t.memory_kind.push(e.memory_kind);
  t.bytes.push_back(e.bytes);
  t.address.push_back(e.address);
  t.corr.push_back(e.correlation_id);
  t.device.push_back(e.device);
  t.stream.push_back(e.stream);
  t.scope.push_back(e.scope_path);
  t.ts_ns.push_back(e.ts_ns);
  seen(e.ts_ns);
}

void SessionColumns::onStack(const StackDef& e) {
  std::string joined;
  for (size_t i = 0; i < e.frames.size(); ++i) {
    if (i) joined.push_back('\n');
    joined += e.frames[i];
  }
  stacks.id.push_back(e.id);
  stacks.frames.push_back(std::move(joined));
}

void SessionColumns::onScopePath(const ScopePath& e) {
  scope_paths.p.push_back(e.id);
  scope_paths.parent.push_back(e.parent);
  scope_paths.depth.push_back(e.depth);
  scope_paths.name.push(e.name);
}

void SessionColumns::onScopeBegin(const ScopeBegin& e) {
  auto& t = scopes;
  t.row_of_id[e.id] = t.id.size();
  t.id.push_back(e.id);
  t.p.push_back(e.path);
  t.tid.push_back(e.tid);
  t.depth.push_back(e.depth);
  t.start_ns.push_back(e.ts_ns);
  t.end_ns.push_back(std::numeric_limits<int64_t>::min());
  t.name.push(e.name);
  t.tag.push(e.tag);
  seen(e.ts_ns);
}

void SessionColumns::onScopeEnd(const ScopeEnd& e) {
  auto it = scopes.row_of_id.find(e.id);
  if (it == scopes.row_of_id.end()) {
    ++scopes.unmatched_ends;  // its begin was in a lost line or an earlier, deleted segment
  } else {
    scopes.end_ns[it->second] = e.ts_ns;
  }
  seen(e.ts_ns);
}

void SessionColumns::onGpuSample(const GpuSample& e) {
  gpu_samples.push(e);
  seen(e.ts_ns);
}

void SessionColumns::onHostSample(const HostSample& e) {
  host_samples.push(e);
  seen(e.ts_ns);
}

void SessionColumns::onSassMetric(const SassMetric& e) {
  sass.push(e);
}

void SessionColumns::onPcSample(const PcSample& e) {
  pc_samples.push(e);
}

void SessionColumns::onRangeCounters(const RangeCounters& e) {
  auto& t = range_counters;
  const auto instance = static_cast<uint32_t>(range_records_++);
  for (const auto& [metric, value] : e.metrics) {
    t.range.push(e.range);
    t.kernel.push(e.kernel);
    t.metric.push(metric);
    t.p.push_back(e.path);
    t.instance.push_back(instance);
    t.value.push_back(value);
  }
}

void SessionColumns::onBenchmark(const BenchmarkResult& e) {
  auto& t = benchmarks;
  schema::Schema<BenchmarkResult>::forEach(e, [&](const schema::FieldInfo& f, const auto& m) {
    using M = std::remove_cvref_t<decltype(m)>;
    if constexpr (std::is_same_v<M, std::string>) {
      pushOptionalString(t.strings[std::string(f.key)], m);
    } else if constexpr (std::is_same_v<M, std::vector<std::string>>) {
      std::string joined;
      for (const std::string& s : m) joined += (joined.empty() ? "" : "\n") + s;
      pushOptionalString(t.strings[std::string(f.key)], joined);
    } else if constexpr (requires { m.has_value(); }) {
      t.numbers[std::string(f.key)].push_back(optToDouble(m));
    } else {
      t.numbers[std::string(f.key)].push_back(static_cast<double>(m));
    }
  });
  if (e.ts_ns) seen(e.ts_ns);
}

void SessionColumns::onIncident(const Incident& e) {
  incidents.push(e);
  const uint32_t row = incident_rows++;
  incident_launches.push(row, e.in_flight);
  incident_blocked.push(row, e.blocked);
  incident_last_kernels.push(row, e.last_kernels);
  seen(e.ts_ns);
}

void SessionColumns::onHealth(const Health& e) {
  health.push(e);
  health_examples.push(health_rows++, e.examples);
  seen(e.ts_ns);
}

void loadSession(const std::string& prefix, const std::string& session, size_t max_warnings,
                 LoadResult& out) {
  log::ReadOptions options;
  options.session = session;
  options.max_warnings = max_warnings;
  out.read = log::readPrefix(prefix, options, out.columns);
}

}  // namespace gpufl::py
