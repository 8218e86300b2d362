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

std::string dimText(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

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
  // A device learned after session_start (gpufl trace); the same device from another segment is not added twice.
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
  notes.ts_ns.push_back(e.ts_ns);
  notes.feature.push(e.feature);
  notes.status.push(e.status);
  notes.reason.push_back(e.reason);
}

void SessionColumns::onKernelDef(const KernelDef& e) {
  auto& t = kernel_defs;
  t.k.push_back(e.id);
  t.device.push_back(e.device);
  t.context.push_back(e.context);
  t.name.push(e.name);
  t.demangled.push(e.demangled.empty() ? e.name : e.demangled);
  t.short_name.push(readableKernelName(e.name.empty() ? e.demangled : e.name));
  t.grid.push(dimText(e.grid));
  t.block.push(dimText(e.block));
  t.grid_x.push_back(e.grid.x);
  t.grid_y.push_back(e.grid.y);
  t.grid_z.push_back(e.grid.z);
  t.block_x.push_back(e.block.x);
  t.block_y.push_back(e.block.y);
  t.block_z.push_back(e.block.z);
  t.num_regs.push_back(e.num_regs);
  t.static_shared_bytes.push_back(e.static_shared_bytes);
  t.dyn_shared_bytes.push_back(e.dyn_shared_bytes);
  t.local_bytes.push_back(e.local_bytes);
  t.carveout_pct.push_back(e.carveout_pct.value_or(-1));
  if (e.occupancy) {
    const Occupancy& o = *e.occupancy;
    t.occupancy.push_back(o.occupancy);
    t.reg_occupancy.push_back(o.reg_occupancy);
    t.smem_occupancy.push_back(o.smem_occupancy);
    t.warp_occupancy.push_back(o.warp_occupancy);
    t.block_occupancy.push_back(o.block_occupancy);
    t.max_active_blocks.push_back(o.max_active_blocks);
    t.limiting_resource.push(limitingResourceName(o.limiting));
  } else {
    for (auto* v : {&t.occupancy, &t.reg_occupancy, &t.smem_occupancy, &t.warp_occupancy, &t.block_occupancy})
      v->push_back(kNaN);
    t.max_active_blocks.push_back(-1);
    t.limiting_resource.pushMissing();
  }
  t.waves.push_back(optToDouble(e.waves));
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
  t.end_ns.push_back(e.end_ns);
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
  auto& t = gpu_samples;
  t.ts_ns.push_back(e.ts_ns);
  t.gpu.push_back(e.gpu);
  t.util_gpu.push_back(optToDouble(e.util_gpu));
  t.util_mem.push_back(optToDouble(e.util_mem));
  t.mem_used_bytes.push_back(optToDouble(e.mem_used_bytes));
  t.mem_total_bytes.push_back(optToDouble(e.mem_total_bytes));
  t.temp_c.push_back(optToDouble(e.temp_c));
  t.power_mw.push_back(optToDouble(e.power_mw));
  t.power_limit_mw.push_back(optToDouble(e.power_limit_mw));
  t.energy_mj.push_back(optToDouble(e.energy_mj));
  t.clk_sm.push_back(optToDouble(e.clk_sm));
  t.clk_mem.push_back(optToDouble(e.clk_mem));
  t.clk_gfx.push_back(optToDouble(e.clk_gfx));
  t.pcie_rx_kbps.push_back(optToDouble(e.pcie_rx_kbps));
  t.pcie_tx_kbps.push_back(optToDouble(e.pcie_tx_kbps));
  t.throttle.push_back(optToDouble(e.throttle));
  if (e.throttle_reasons.empty()) {
    t.throttle_reasons.pushMissing();
  } else {
    std::string joined;
    for (size_t i = 0; i < e.throttle_reasons.size(); ++i) {
      if (i) joined.push_back(',');
      joined += e.throttle_reasons[i];
    }
    t.throttle_reasons.push(joined);
  }
  seen(e.ts_ns);
}

void SessionColumns::onHostSample(const HostSample& e) {
  auto& t = host_samples;
  t.ts_ns.push_back(e.ts_ns);
  t.cpu_pct.push_back(optToDouble(e.cpu_pct));
  t.proc_cpu_pct.push_back(optToDouble(e.proc_cpu_pct));
  t.ram_used_bytes.push_back(optToDouble(e.ram_used_bytes));
  t.ram_total_bytes.push_back(optToDouble(e.ram_total_bytes));
  t.proc_rss_bytes.push_back(optToDouble(e.proc_rss_bytes));
  seen(e.ts_ns);
}

void SessionColumns::onSassMetric(const SassMetric& e) {
  auto& t = sass;
  t.func.push(e.func);
  pushOptionalString(t.sass, e.sass);
  pushOptionalString(t.source, e.source);
  t.pc.push_back(e.pc);
  t.launches.push_back(e.launches);
  t.inst_executed.push_back(e.inst_executed);
  t.thread_inst_executed.push_back(e.thread_inst_executed);
  t.sectors_global.push_back(e.sectors_global);
  t.sectors_global_ideal.push_back(e.sectors_global_ideal);
}

void SessionColumns::onPcSample(const PcSample& e) {
  auto& t = pc_samples;
  t.func.push(e.func);
  t.stall.push(e.stall);
  pushOptionalString(t.sass, e.sass);
  pushOptionalString(t.source, e.source);
  t.pc.push_back(e.pc);
  t.count.push_back(e.count);
  t.patched.push_back(e.patched ? 1 : 0);
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

void loadSession(const std::string& prefix, const std::string& session, size_t max_warnings, LoadResult& out) {
  log::ReadOptions options;
  options.session = session;
  options.max_warnings = max_warnings;
  out.read = log::readPrefix(prefix, options, out.columns);
}

}  // namespace gpufl::py
