#include "export/timeline_builder.hpp"

#include <algorithm>
#include <cstdio>

namespace gpufl::exporter {

uint64_t flowIdOfScope(uint32_t rank, uint64_t scope_instance) {
  return (uint64_t{rank + 1} << 56) | (scope_instance & ((uint64_t{1} << 56) - 1));
}

// A kernel definition's slice name and arguments, built once and shared by all its launches.
struct TimelineBuilder::Definition {
  std::string name;
  uint32_t device = 0;
  std::vector<std::string> strings;  // storage the string arguments point into (filled before args)
  std::vector<SliceArg> args;
};

struct TimelineBuilder::StreamTrack {
  uint32_t device = 0, stream = 0;
  bool copies = false;
  struct Lane {
    uint64_t uuid;
    int64_t last_end;
  };
  std::vector<Lane> lanes;
  struct Held {
    int64_t begin_ns;
    uint64_t seq;
    Pending event;
    bool operator>(const Held& o) const {
      return begin_ns != o.begin_ns ? begin_ns > o.begin_ns : seq > o.seq;
    }
  };
  std::priority_queue<Held, std::vector<Held>, std::greater<>> held;
  uint64_t seq = 0;
  int64_t last_released_begin = INT64_MIN;
};

namespace {

// "name=value" of one argument (doubles with up to 4 significant decimals).
std::string argText(const SliceArg& a) {
  std::string out(a.name);
  out += '=';
  if (auto* i = std::get_if<int64_t>(&a.value))
    out += std::to_string(*i);
  else if (auto* u = std::get_if<uint64_t>(&a.value))
    out += std::to_string(*u);
  else if (auto* b = std::get_if<bool>(&a.value))
    out += *b ? "true" : "false";
  else if (auto* d = std::get_if<double>(&a.value)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", *d);
    out += text;
  } else {
    out += std::get<std::string_view>(a.value);
  }
  return out;
}

}  // namespace

TimelineBuilder::TimelineBuilder(TimelineSink& sink, SessionPlacement placement,
                                 const ScopeIndex* scopes, const DeepSummary* deep)
    : sink_(sink), placement_(std::move(placement)), scopes_(scopes), deep_(deep) {}

TimelineBuilder::~TimelineBuilder() = default;

// Small ids keep the track_uuid varint of every event at 3-4 bytes (an id with a high bit set costs
// 9).
uint64_t TimelineBuilder::newTrackUuid() {
  return (uint64_t{placement_.rank + 1} << 24) | (next_track_++ & 0xFFFFFF);
}

void TimelineBuilder::onSessionStart(const SessionStart& s) {
  if (!have_start_) start_ = s;
  have_start_ = true;
  ensureProcess();
}

void TimelineBuilder::ensureProcess() {
  if (have_process_) return;
  have_process_ = true;
  pid_ = start_.pid;
  if (placement_.used_pids)
    while (!placement_.used_pids->insert(pid_).second) pid_ += 1'000'000;
  process_uuid_ = newTrackUuid();
  std::string label = start_.app.empty() ? "gpufl session " + start_.sid : start_.app;
  label += placement_.label_suffix;
  if (!start_.host.empty()) label += " @" + start_.host;
  sink_.process(process_uuid_, pid_, label);
}

void TimelineBuilder::onKernelDef(const KernelDef& d) {
  auto def = std::make_unique<Definition>();
  def->name = d.demangled.empty() ? d.name : d.demangled;
  def->device = d.device;
  const FunctionDeep* deep = deep_ ? deep_->find(d.name) : nullptr;
  // Strings first: args point into them, so the vector must not grow afterwards.
  def->strings.reserve(4);
  def->strings.push_back(dim3Text(d.grid));
  def->strings.push_back(dim3Text(d.block));
  if (d.occupancy) def->strings.push_back(limitingResourceName(d.occupancy->limiting));
  if (deep && deep->stall_samples) def->strings.push_back(topStalls(*deep, 3));
  size_t s = 0;
  auto& a = def->args;
  a.push_back({"grid", std::string_view(def->strings[s++])});
  a.push_back({"block", std::string_view(def->strings[s++])});
  a.push_back({"num_regs", int64_t{d.num_regs}});
  a.push_back({"static_shared_bytes", int64_t{d.static_shared_bytes}});
  a.push_back({"dyn_shared_bytes", int64_t{d.dyn_shared_bytes}});
  if (d.local_bytes) a.push_back({"local_bytes", int64_t{d.local_bytes}});
  if (d.occupancy) {
    a.push_back({"occupancy", d.occupancy->occupancy});
    a.push_back({"limiting_resource", std::string_view(def->strings[s++])});
    a.push_back({"max_active_blocks", int64_t{d.occupancy->max_active_blocks}});
  }
  if (d.waves) a.push_back({"waves", *d.waves});
  if (deep && deep->has_sass) {
    a.push_back({"memory_efficiency_pct", deep->sass.memoryEfficiencyPct()});
    a.push_back({"warp_efficiency_pct", deep->sass.warpEfficiencyPct()});
  }
  if (deep && deep->stall_samples) {
    a.push_back({"top_stalls", std::string_view(def->strings[s++])});
    a.push_back({"stall_samples", deep->stall_samples});
  }
  if (placement_.compact_kernel_args) {
    // "grid=(4,1,1) block=(256,1,1) num_regs=32 ...; top_stalls=long_scoreboard 61%, ...", one
    // argument.
    std::string launch;
    for (const SliceArg& arg : def->args) launch += (launch.empty() ? "" : "; ") + argText(arg);
    def->args.clear();
    def->strings.clear();
    def->strings.shrink_to_fit();
    def->strings.reserve(1);
    def->strings.push_back(std::move(launch));
    def->args.push_back({"launch", std::string_view(def->strings[0])});
  }
  defs_[d.id] = std::move(def);
}

uint64_t TimelineBuilder::threadTrack(int64_t tid) {
  ensureProcess();
  auto it = threads_.find(tid);
  if (it != threads_.end()) return it->second;
  const uint64_t uuid = newTrackUuid();
  threads_.emplace(tid, uuid);
  sink_.thread(uuid, process_uuid_, pid_, tid, "thread " + std::to_string(tid));
  return uuid;
}

TimelineBuilder::StreamTrack& TimelineBuilder::streamTrack(uint32_t device, uint32_t stream,
                                                           bool copies) {
  const uint64_t key = (uint64_t{device} << 33) | (uint64_t{stream} << 1) | (copies ? 1 : 0);
  auto it = streams_.find(key);
  if (it != streams_.end()) return *it->second;
  auto t = std::make_unique<StreamTrack>();
  t->device = device;
  t->stream = stream;
  t->copies = copies;
  return *streams_.emplace(key, std::move(t)).first->second;
}

uint64_t TimelineBuilder::laneFor(StreamTrack& t, int64_t begin_ns, int64_t end_ns) {
  for (auto& lane : t.lanes) {
    if (lane.last_end <= begin_ns) {
      lane.last_end = end_ns;
      return lane.uuid;
    }
  }
  ensureProcess();
  const uint64_t uuid = newTrackUuid();
  std::string name = "GPU " + std::to_string(t.device) + " stream " + std::to_string(t.stream);
  if (t.copies) name += " copies";
  if (!t.lanes.empty()) name += " (overlap " + std::to_string(t.lanes.size()) + ")";
  sink_.track(uuid, process_uuid_, name);
  t.lanes.push_back({uuid, end_ns});
  return uuid;
}

void TimelineBuilder::hold(StreamTrack& t, Pending p, int64_t begin_ns) {
  t.held.push({begin_ns, t.seq++, std::move(p)});
  if (t.held.size() > kReorderWindow) release(t);
}

void TimelineBuilder::release(StreamTrack& t) {
  const StreamTrack::Held& h = t.held.top();
  if (h.begin_ns < t.last_released_begin) ++out_of_order_;
  t.last_released_begin = std::max(t.last_released_begin, h.begin_ns);
  if (const auto* k = std::get_if<KernelEvent>(&h.event)) {
    writeKernel(laneFor(t, k->start_ns, k->end_ns), *k);
  } else {
    const auto& m = std::get<MemcpyEvent>(h.event);
    writeCopy(laneFor(t, m.start_ns, m.end_ns), m);
  }
  t.held.pop();
}

void TimelineBuilder::onKernel(const KernelEvent& k) {
  auto def = defs_.find(k.def_id);
  const uint32_t device = def != defs_.end() ? def->second->device : 0;
  hold(streamTrack(device, k.stream, false), k, k.start_ns);
}

void TimelineBuilder::onMemcpy(const MemcpyEvent& m) {
  hold(streamTrack(m.device, m.stream, true), m, m.start_ns);
}

void TimelineBuilder::writeKernel(uint64_t track, const KernelEvent& k) {
  auto def = defs_.find(k.def_id);
  std::vector<SliceArg>& args = scratch_;
  args.clear();
  args.push_back({"correlation_id", k.correlation_id});
  std::string_view name = "(kernel without definition)";
  if (def != defs_.end()) {
    name = def->second->name;
    args.insert(args.end(), def->second->args.begin(), def->second->args.end());
  } else {
    ++undefined_kernels_;
  }
  if (k.instrumented) args.push_back({"instrumented", true});
  if (k.graph_id) args.push_back({"graph_id", uint64_t{k.graph_id}});
  const ScopeInstance* scope =
      k.scope_path && scopes_ ? scopes_->find(k.scope_path, k.start_ns) : nullptr;
  sink_.complete(track, k.start_ns + placement_.offset_ns, k.end_ns + placement_.offset_ns, name,
                 "kernel", args, scope ? flowIdOfScope(placement_.rank, scope->id) : 0);
}

void TimelineBuilder::writeCopy(uint64_t track, const MemcpyEvent& m) {
  std::vector<SliceArg>& args = scratch_;
  args.clear();
  args.push_back({"correlation_id", m.correlation_id});
  args.push_back({"bytes", m.bytes});
  if (!m.is_memset) args.push_back({"kind", std::string_view(copyKindName(m.kind))});
  if (!m.src_kind.empty()) args.push_back({"src_kind", std::string_view(m.src_kind)});
  if (!m.dst_kind.empty()) args.push_back({"dst_kind", std::string_view(m.dst_kind)});
  if (m.value) args.push_back({"value", uint64_t{*m.value}});
  const std::string name = m.is_memset ? "memset" : std::string("memcpy ") + copyKindName(m.kind);
  const ScopeInstance* scope =
      m.scope_path && scopes_ ? scopes_->find(m.scope_path, m.start_ns) : nullptr;
  sink_.complete(track, m.start_ns + placement_.offset_ns, m.end_ns + placement_.offset_ns, name,
                 m.is_memset ? "memset" : "memcpy", args,
                 scope ? flowIdOfScope(placement_.rank, scope->id) : 0);
}

void TimelineBuilder::onScopeBegin(const ScopeBegin& b) {
  const SliceArg args[] = {{"scope_id", b.id}, {"path", uint64_t{b.path}}};
  sink_.begin(threadTrack(b.tid), b.ts_ns + placement_.offset_ns, b.name,
              b.tag.empty() ? std::string_view("scope") : std::string_view(b.tag), args,
              scopes_ ? flowIdOfScope(placement_.rank, b.id) : 0);
}

void TimelineBuilder::onScopeEnd(const ScopeEnd& e) {
  sink_.end(threadTrack(e.tid), e.ts_ns + placement_.offset_ns);
}

uint64_t TimelineBuilder::counterTrack(const std::string& name, const std::string& unit) {
  auto it = counters_.find(name);
  if (it != counters_.end()) return it->second;
  ensureProcess();
  const uint64_t uuid = newTrackUuid();
  counters_.emplace(name, uuid);
  sink_.counterTrack(uuid, process_uuid_, name, unit);
  return uuid;
}

void TimelineBuilder::sample(const std::string& name, const std::string& unit, int64_t ts_ns,
                             double value) {
  sink_.counter(counterTrack(name, unit), ts_ns + placement_.offset_ns, value);
}

void TimelineBuilder::onIncident(const Incident& i) {
  if (incident_track_ == 0) {
    ensureProcess();
    incident_track_ = newTrackUuid();
    sink_.track(incident_track_, process_uuid_, "incidents");
  }
  std::string suspects;
  for (const InFlightLaunch& l : i.in_flight)
    if (l.suspect) suspects += (suspects.empty() ? "" : "\n") + l.name;
  scratch_.clear();
  if (!i.api.empty()) scratch_.push_back({"api", std::string_view(i.api)});
  if (!i.error_name.empty()) scratch_.push_back({"error_name", std::string_view(i.error_name)});
  if (i.error_code) scratch_.push_back({"error_code", *i.error_code});
  if (i.tid != 0) scratch_.push_back({"tid", i.tid});
  if (!i.attribution.empty()) scratch_.push_back({"attribution", std::string_view(i.attribution)});
  if (!suspects.empty()) scratch_.push_back({"suspects", std::string_view(suspects)});
  scratch_.push_back({"in_flight", i.in_flight_count});
  if (i.requested_bytes) scratch_.push_back({"requested_bytes", *i.requested_bytes});
  sink_.instant(incident_track_, i.ts_ns + placement_.offset_ns, i.kind + ": " + i.reason,
                "incident", scratch_);
}

// Counter names are "GPU <n> <field>" and "host <field>", the field as the log names it, in the
// log's unit.
void TimelineBuilder::onGpuSample(const GpuSample& s) {
  const std::string gpu = "GPU " + std::to_string(s.gpu) + " ";
  auto put = [&](const char* field, const char* unit, const auto& v) {
    if (v) sample(gpu + field, unit, s.ts_ns, static_cast<double>(*v));
  };
  put("util_gpu", "%", s.util_gpu);
  put("util_mem", "%", s.util_mem);
  put("mem_used_bytes", "bytes", s.mem_used_bytes);
  put("temp_c", "C", s.temp_c);
  put("power_mw", "mW", s.power_mw);
  put("clk_sm", "MHz", s.clk_sm);
  put("clk_mem", "MHz", s.clk_mem);
  put("pcie_rx_kbps", "KB/s", s.pcie_rx_kbps);
  put("pcie_tx_kbps", "KB/s", s.pcie_tx_kbps);
}

void TimelineBuilder::onHostSample(const HostSample& s) {
  auto put = [&](const char* field, const char* unit, const auto& v) {
    if (v) sample(std::string("host ") + field, unit, s.ts_ns, static_cast<double>(*v));
  };
  put("cpu_pct", "%", s.cpu_pct);
  put("proc_cpu_pct", "%", s.proc_cpu_pct);
  put("ram_used_bytes", "bytes", s.ram_used_bytes);
  put("proc_rss_bytes", "bytes", s.proc_rss_bytes);
}

void TimelineBuilder::finish() {
  for (auto& [key, t] : streams_)
    while (!t->held.empty()) release(*t);
}

}  // namespace gpufl::exporter
