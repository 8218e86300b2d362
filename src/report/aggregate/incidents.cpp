// IncidentCollector: the incident records and what the report needs around them (stacks, the
// device memory live at each incident).
#include "report/aggregate/incidents.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "core/demangle.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {
namespace {

constexpr size_t kShortNameLength = 60;

std::string shortName(const std::string& name) {
  ReadableNameOptions options;
  options.max_length = kShortNameLength;
  return readableKernelName(name, options);
}

int64_t ago(int64_t now_ns, int64_t then_ns) {
  return then_ns > 0 && now_ns >= then_ns ? now_ns - then_ns : -1;
}

uint64_t nameHash(const std::string& name) {
  return std::hash<std::string_view>{}(name);
}

}  // namespace

void IncidentCollector::onKernelDef(const KernelDef& e) {
  const uint64_t hash = nameHash(e.name.empty() ? e.demangled : e.name);
  if (e.id < kDenseIds) {
    if (def_hash_.size() <= e.id) def_hash_.resize(e.id + 1, 0);
    def_hash_[e.id] = hash;
  } else {
    sparse_def_hash_[e.id] = hash;
  }
}

uint64_t IncidentCollector::defHash(uint32_t id) const {
  if (id < kDenseIds) return id < def_hash_.size() ? def_hash_[id] : 0;
  const auto it = sparse_def_hash_.find(id);
  return it == sparse_def_hash_.end() ? 0 : it->second;
}

void IncidentCollector::onStack(const StackDef& e) {
  if (stacks_.size() >= kMaxStacks && !wanted_stacks_.contains(e.id)) return;
  std::vector<std::string>& frames = stacks_[e.id];
  frames.assign(e.frames.begin(), e.frames.begin() + static_cast<std::ptrdiff_t>(
                                                         std::min(e.frames.size(), kStackFrames)));
}

void IncidentCollector::remember(int64_t ts_ns, const Key& key, std::optional<Live> before) {
  applied_.push_back({ts_ns, key, before});
  if (applied_.size() > kLookBack) {
    forgotten_ts_ = std::max(forgotten_ts_, applied_.front().ts_ns);
    applied_.pop_front();
  }
}

void IncidentCollector::onMemory(const MemoryEvent& e) {
  // An incident whose time this event is past: every event before it has been seen (CUPTI
  // delivers memory records in time order per context).
  for (size_t i = 0; i < incidents_.size(); ++i)
    if (!memory_[i] && e.ts_ns > incidents_[i].ts_ns) memory_[i] = snapshot(incidents_[i].ts_ns);
  const Key key{e.device, e.address};
  auto it = live_.find(key);
  if (e.is_free) {
    if (it == live_.end()) return;  // allocated before recording, or not device memory
    remember(e.ts_ns, key, it->second);
    live_.erase(it);
  } else {
    if (e.memory_kind != "device") return;  // pinned, managed and pageable memory is the host's
    any_memory_ = true;
    std::optional<Live> before;
    if (it != live_.end()) before = it->second;  // an address reused without its release seen
    remember(e.ts_ns, key, before);
    live_[key] = Live{e.bytes, e.scope_path};
  }
  last_memory_ts_ = std::max(last_memory_ts_, e.ts_ns);
}

void IncidentCollector::onIncident(const Incident& e) {
  if (incidents_.size() >= kMaxIncidents) {
    ++dropped_;
    return;
  }
  incidents_.push_back(e);
  // Events timed after the incident are already applied (the log placed the incident late): undo
  // them now. Otherwise wait for the first event past it.
  memory_.push_back(last_memory_ts_ > e.ts_ns ? std::optional(snapshot(e.ts_ns)) : std::nullopt);
  for (const InFlightLaunch& l : e.in_flight)
    if (l.stack_id != 0) wanted_stacks_.insert(l.stack_id);
}

IncidentMemory IncidentCollector::snapshot(int64_t ts_ns) const {
  IncidentMemory m;
  m.from_events = any_memory_;
  m.approximate = forgotten_ts_ > ts_ns;
  // The entry of each key as it was at ts_ns, where an event after ts_ns changed it: the `before`
  // of the earliest such event.
  std::map<Key, std::optional<Live>> undone;
  for (auto it = applied_.rbegin(); it != applied_.rend(); ++it)
    if (it->ts_ns > ts_ns) undone[it->key] = it->before;
  std::map<uint32_t, IncidentHolder> by_scope;
  auto count = [&](const Live& l) {
    IncidentHolder& h = by_scope[l.scope_path];
    h.scope_path = l.scope_path;
    ++h.allocs;
    h.bytes += l.bytes;
    h.largest = std::max(h.largest, l.bytes);
    ++m.live_allocs;
    m.live_bytes += l.bytes;
  };
  for (const auto& [key, live] : live_)
    if (!undone.contains(key)) count(live);
  for (const auto& [key, before] : undone)
    if (before) count(*before);
  for (const auto& [path, h] : by_scope) m.holders.push_back(h);
  std::stable_sort(
      m.holders.begin(), m.holders.end(),
      [](const IncidentHolder& a, const IncidentHolder& b) { return a.bytes > b.bytes; });
  if (m.holders.size() > kTopHolders) m.holders.resize(kTopHolders);
  return m;
}

void IncidentCollector::finish(Report& r) const {
  IncidentSummary& out = r.incidents;
  out = {};
  out.dropped = dropped_;
  if (auto it = r.collection.dropped.find("untimed_kernels"); it != r.collection.dropped.end())
    out.untimed_kernels = it->second;
  if (auto it = r.collection.dropped.find("incidents"); it != r.collection.dropped.end())
    out.left_out = it->second;
  if (incidents_.empty()) return;
  const int64_t start_ns = r.session.start_ns;
  // The readable name of each kernel group, by the hash of its mangled name (the last kernels name
  // a kernel_def; the model keeps one definition per group).
  std::unordered_map<uint64_t, const std::string*> group_names;
  for (const KernelGroup& g : r.kernels.groups)
    if (g.defined) group_names.emplace(nameHash(g.mangled.empty() ? g.name : g.mangled), &g.name);
  for (size_t i = 0; i < incidents_.size(); ++i) {
    const Incident& e = incidents_[i];
    IncidentView v;
    v.ts_ns = e.ts_ns;
    v.at_ns = start_ns > 0 && e.ts_ns >= start_ns ? e.ts_ns - start_ns : 0;
    v.kind = e.kind;
    v.reason = e.reason;
    v.api = e.api;
    v.error_name = e.error_name;
    v.error_code = e.error_code;
    v.attribution = e.attribution;
    v.tid = e.tid;
    v.scope_path = e.scope_path;
    v.requested_bytes = e.requested_bytes;
    v.free_bytes = e.free_bytes;
    v.total_bytes = e.total_bytes;
    v.in_flight_count = std::max<uint64_t>(e.in_flight_count, e.in_flight.size());
    for (const InFlightLaunch& l : e.in_flight) {
      IncidentLaunch x;
      x.corr = l.correlation_id;
      x.kind = l.kind.empty() ? "kernel" : l.kind;
      x.mangled = l.name;
      x.name = x.kind == "kernel" ? shortName(l.name) : l.name;
      x.stream = l.stream;
      x.stream_handle = l.stream_handle;
      x.context = l.context;
      x.tid = l.tid;
      x.scope_path = l.scope_path;
      if (auto it = stacks_.find(l.stack_id); l.stack_id != 0 && it != stacks_.end())
        x.stack = it->second;
      x.age_ns = ago(e.ts_ns, l.launch_ns);
      x.suspect = l.suspect;
      v.launches.push_back(std::move(x));
    }
    for (const BlockedThread& b : e.blocked)
      v.blocked.push_back({b.tid, b.api, ago(e.ts_ns, b.since_ns), b.stream_handle, b.scope_path});
    for (const LastKernel& k : e.last_kernels) {
      const auto named = group_names.find(defHash(k.def_id));
      std::string name = named == group_names.end() || defHash(k.def_id) == 0
                             ? "kernel_def #" + std::to_string(k.def_id)
                             : shortName(*named->second);
      v.last_kernels.push_back(
          {k.stream, std::move(name), k.correlation_id, ago(e.ts_ns, k.end_ns)});
    }
    std::stable_sort(v.last_kernels.begin(), v.last_kernels.end(),
                     [](const IncidentLastKernel& a, const IncidentLastKernel& b) {
                       return a.before_ns > b.before_ns;
                     });
    v.memory = memory_[i] ? *memory_[i] : snapshot(e.ts_ns);
    v.gpu_mem_used_bytes = e.gpu_mem_used_bytes;
    v.gpu_mem_total_bytes = e.gpu_mem_total_bytes;
    v.gpu_util = e.gpu_util;
    v.gpu_temp_c = e.gpu_temp_c;
    v.gpu_clk_sm = e.gpu_clk_sm;
    v.gpu_power_mw = e.gpu_power_mw;
    v.gpu_sample_age_ns = e.gpu_sample_age_ns;
    out.incidents.push_back(std::move(v));
  }
  std::stable_sort(out.incidents.begin(), out.incidents.end(),
                   [](const IncidentView& a, const IncidentView& b) { return a.ts_ns < b.ts_ns; });
}

}  // namespace gpufl::report
