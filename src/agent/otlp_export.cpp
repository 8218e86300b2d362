#include "agent/otlp_export.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <protozero/pbf_writer.hpp>
#include <stdexcept>
#include <variant>
#include <vector>

#include "agent/line_check.hpp"
#include "core/event_visitor.hpp"
#include "gpufl/version.hpp"
#include "log/reader.hpp"

namespace gpufl::agent {
namespace {

// Field numbers of opentelemetry-proto (common/v1, resource/v1, trace/v1, metrics/v1).
namespace f {
constexpr int kKvKey = 1, kKvValue = 2;
constexpr int kAnyString = 1, kAnyBool = 2, kAnyInt = 3, kAnyDouble = 4;
constexpr int kResourceAttributes = 1;
constexpr int kScopeName = 1, kScopeVersion = 2;
constexpr int kRequestResourceData = 1;  // resource_spans / resource_metrics
constexpr int kResourceDataResource = 1, kResourceDataScopeData = 2;
constexpr int kScopeDataScope = 1, kScopeDataItems = 2;  // spans / metrics
constexpr int kSpanTraceId = 1, kSpanId = 2, kSpanParent = 4, kSpanName = 5, kSpanKind = 6,
              kSpanStart = 7, kSpanEnd = 8, kSpanAttributes = 9;
constexpr int kSpanKindInternal = 1;
constexpr int kMetricName = 1, kMetricDescription = 2, kMetricUnit = 3, kMetricGauge = 5;
constexpr int kGaugePoints = 1;
constexpr int kPointTime = 3, kPointDouble = 4, kPointAttributes = 7;
}  // namespace f

using Value = std::variant<std::string, int64_t, double, bool>;

void addAttr(protozero::pbf_writer& w, int tag, const std::string& key, const Value& v) {
  protozero::pbf_writer kv{w, static_cast<protozero::pbf_tag_type>(tag)};
  kv.add_string(f::kKvKey, key);
  protozero::pbf_writer any{kv, f::kKvValue};
  if (auto s = std::get_if<std::string>(&v))
    any.add_string(f::kAnyString, *s);
  else if (auto i = std::get_if<int64_t>(&v))
    any.add_int64(f::kAnyInt, *i);
  else if (auto d = std::get_if<double>(&v))
    any.add_double(f::kAnyDouble, *d);
  else
    any.add_bool(f::kAnyBool, std::get<bool>(v));
}

std::string dimText(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// 16 bytes of the session UUID's hex digits (a hash of it when it is not a UUID).
std::string traceIdOf(const std::string& session_id) {
  std::string hex;
  for (char c : session_id)
    if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
  std::string out;
  if (hex.size() == 32) {
    for (size_t i = 0; i < 32; i += 2)
      out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
  }
  uint64_t a = fnv1a64(session_id), b = fnv1a64(session_id, a);
  for (int i = 0; i < 8; ++i) out += static_cast<char>(a >> (8 * i));
  for (int i = 0; i < 8; ++i) out += static_cast<char>(b >> (8 * i));
  return out;
}

std::string spanIdOf(const std::string& session_id, char kind, uint64_t n) {
  uint64_t h = fnv1a64(std::string(1, kind) + std::to_string(n), fnv1a64(session_id));
  if (h == 0) h = 1;  // an all-zero span id is invalid
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>(h >> (8 * i));
  return out;
}

struct ScopeSpan {
  uint64_t id = 0;
  uint32_t path = 0;
  int64_t tid = 0;
  int64_t begin_ns = 0, end_ns = -1;
  uint64_t parent = 0;  // enclosing instance id, 0 = none
  std::string name, tag;
  int depth = 0;
};

// Pass 1: the session's identity and every scope instance.
class ScopePass : public EventVisitor {
 public:
  void onSessionStart(const SessionStart& s) override {
    if (start.session_id.empty())
      start = s;
    else
      start.devices.insert(start.devices.end(), s.devices.begin(), s.devices.end());
  }
  void onSessionEnd(const SessionEnd& e) override { end_ns = std::max(end_ns, e.end_ns); }
  void onDevice(const DeviceEvent& d) override { start.devices.push_back(d.device); }
  void onScopeBegin(const ScopeBegin& b) override {
    ScopeSpan s{b.id, b.path, b.tid, b.ts_ns, -1, 0, b.name, b.tag, b.depth};
    auto& stack = open_[b.tid];
    if (!stack.empty()) s.parent = stack.back();
    stack.push_back(b.id);
    index_[b.id] = scopes.size();
    scopes.push_back(std::move(s));
  }
  void onScopeEnd(const ScopeEnd& e) override {
    auto it = index_.find(e.id);
    if (it != index_.end()) scopes[it->second].end_ns = e.ts_ns;
    auto& stack = open_[e.tid];
    auto pos = std::find(stack.begin(), stack.end(), e.id);
    if (pos != stack.end()) stack.erase(pos, stack.end());
  }

  SessionStart start;
  int64_t end_ns = 0;
  std::vector<ScopeSpan> scopes;

 private:
  std::map<int64_t, std::vector<uint64_t>> open_;
  std::map<uint64_t, size_t> index_;
};

// Accumulates one request's items and hands it out when full.
class RequestBuilder {
 public:
  RequestBuilder(OtlpRequest::Kind kind, std::string resource, size_t max_items,
                 const std::function<bool(OtlpRequest&&)>& emit)
      : kind_(kind), resource_(std::move(resource)), max_(max_items), emit_(emit) {}
  // Items are length-delimited messages appended to the scope's repeated field.
  protozero::pbf_writer& items() { return writer_; }
  bool added() {
    ++count_;
    return count_ < max_ || flush();
  }
  bool flush() {
    if (count_ == 0) return ok_;
    std::string scope;
    {
      protozero::pbf_writer s{scope};
      s.add_string(f::kScopeName, "gpufl");
      s.add_string(f::kScopeVersion, gpufl::kVersion);
    }
    std::string scope_data;
    {
      protozero::pbf_writer sd{scope_data};
      sd.add_message(f::kScopeDataScope, scope);
    }
    scope_data += items_;
    OtlpRequest req{kind_, {}, count_};
    {
      protozero::pbf_writer r{req.body};
      protozero::pbf_writer rd{r, f::kRequestResourceData};
      rd.add_message(f::kResourceDataResource, resource_);
      rd.add_message(f::kResourceDataScopeData, scope_data);
    }
    items_.clear();
    count_ = 0;
    ok_ = ok_ && emit_(std::move(req));
    return ok_;
  }

 private:
  OtlpRequest::Kind kind_;
  std::string resource_;
  size_t max_;
  const std::function<bool(OtlpRequest&&)>& emit_;
  std::string items_;
  protozero::pbf_writer writer_{items_};
  uint64_t count_ = 0;
  bool ok_ = true;
};

// Pass 2: kernels as spans, samples as gauge points.
class EventPass : public EventVisitor {
 public:
  EventPass(const ScopePass& scopes, RequestBuilder& spans, RequestBuilder& metrics)
      : scopes_(scopes),
        spans_(spans),
        metrics_(metrics),
        trace_id_(traceIdOf(scopes.start.session_id)) {
    for (const ScopeSpan& s : scopes.scopes) by_path_[s.path].push_back({s.begin_ns, s.id});
    for (auto& [path, v] : by_path_) std::sort(v.begin(), v.end());
  }
  void onKernelDef(const KernelDef& d) override { defs_[d.id] = d; }
  void onKernel(const KernelEvent& k) override {
    auto def = defs_.find(k.def_id);
    protozero::pbf_writer span{spans_.items(), f::kScopeDataItems};
    span.add_bytes(f::kSpanTraceId, trace_id_);
    span.add_bytes(f::kSpanId, spanIdOf(scopes_.start.session_id, 'k', k.correlation_id));
    if (uint64_t parent = parentScope(k); parent != 0)
      span.add_bytes(f::kSpanParent, spanIdOf(scopes_.start.session_id, 's', parent));
    span.add_string(f::kSpanName, def == defs_.end() ? "kernel " + std::to_string(k.def_id)
                                                     : def->second.demangled.substr(0, 1024));
    span.add_enum(f::kSpanKind, f::kSpanKindInternal);
    span.add_fixed64(f::kSpanStart, unixNs(k.start_ns));
    span.add_fixed64(f::kSpanEnd, unixNs(k.end_ns));
    int a = f::kSpanAttributes;
    addAttr(span, a, "gpufl.kind", std::string("kernel"));
    addAttr(span, a, "gpufl.kernel.correlation_id", static_cast<int64_t>(k.correlation_id));
    addAttr(span, a, "gpufl.kernel.stream", static_cast<int64_t>(k.stream));
    addAttr(span, a, "gpufl.kernel.duration_ns", k.end_ns - k.start_ns);
    if (k.instrumented) addAttr(span, a, "gpufl.kernel.instrumented", true);
    if (def != defs_.end()) {
      const KernelDef& d = def->second;
      addAttr(span, a, "gpufl.kernel.name", d.name);
      addAttr(span, a, "gpufl.kernel.device", static_cast<int64_t>(d.device));
      addAttr(span, a, "gpufl.kernel.grid", dimText(d.grid));
      addAttr(span, a, "gpufl.kernel.block", dimText(d.block));
      addAttr(span, a, "gpufl.kernel.num_regs", static_cast<int64_t>(d.num_regs));
      addAttr(span, a, "gpufl.kernel.static_shared_bytes", d.static_shared_bytes);
      addAttr(span, a, "gpufl.kernel.dyn_shared_bytes", d.dyn_shared_bytes);
      if (d.occupancy) {
        addAttr(span, a, "gpufl.kernel.occupancy", d.occupancy->occupancy);
        addAttr(span, a, "gpufl.kernel.max_active_blocks",
                static_cast<int64_t>(d.occupancy->max_active_blocks));
        addAttr(span, a, "gpufl.kernel.limiting_resource",
                std::string(limitingResourceName(d.occupancy->limiting)));
      }
    }
    ++kernels;
    span.commit();  // before added() may send the request and start a new one
    spans_.added();
  }
  void onGpuSample(const GpuSample& s) override {
    auto gpu = [&](const char* name, const char* unit, double v) {
      point(name, unit, s.ts_ns, v, s.gpu);
    };
    if (s.util_gpu) gpu("gpu.utilization", "1", *s.util_gpu / 100.0);
    if (s.util_mem) gpu("gpu.memory.utilization", "1", *s.util_mem / 100.0);
    if (s.mem_used_bytes) gpu("gpu.memory.used", "By", static_cast<double>(*s.mem_used_bytes));
    if (s.mem_total_bytes) gpu("gpu.memory.total", "By", static_cast<double>(*s.mem_total_bytes));
    if (s.temp_c) gpu("gpu.temperature", "Cel", *s.temp_c);
    if (s.power_mw) gpu("gpu.power", "W", *s.power_mw / 1000.0);
    if (s.clk_sm) gpu("gpu.clock.sm", "Hz", *s.clk_sm * 1e6);
    if (s.clk_mem) gpu("gpu.clock.memory", "Hz", *s.clk_mem * 1e6);
  }
  void onHostSample(const HostSample& s) override {
    if (s.cpu_pct) point("system.cpu.utilization", "1", s.ts_ns, *s.cpu_pct / 100.0, std::nullopt);
    if (s.proc_cpu_pct)
      point("process.cpu.utilization", "1", s.ts_ns, *s.proc_cpu_pct / 100.0, std::nullopt);
    if (s.ram_used_bytes)
      point("system.memory.usage", "By", s.ts_ns, static_cast<double>(*s.ram_used_bytes),
            std::nullopt);
    if (s.proc_rss_bytes)
      point("process.memory.usage", "By", s.ts_ns, static_cast<double>(*s.proc_rss_bytes),
            std::nullopt);
  }

  uint64_t kernels = 0, points = 0;

 private:
  uint64_t unixNs(int64_t ns) const {
    return static_cast<uint64_t>(scopes_.start.start_unix_ns + (ns - scopes_.start.start_ns));
  }
  uint64_t parentScope(const KernelEvent& k) const {
    if (k.scope_path == 0) return 0;
    auto it = by_path_.find(k.scope_path);
    if (it == by_path_.end()) return 0;
    auto pos = std::upper_bound(it->second.begin(), it->second.end(),
                                std::pair<int64_t, uint64_t>{k.start_ns, ~0ull});
    return pos == it->second.begin() ? it->second.front().second : std::prev(pos)->second;
  }
  // One metric per point: simple, and collectors merge points of the same metric and resource
  // anyway.
  void point(const char* name, const char* unit, int64_t ts_ns, double value,
             std::optional<uint32_t> gpu) {
    protozero::pbf_writer m{metrics_.items(), f::kScopeDataItems};
    m.add_string(f::kMetricName, name);
    m.add_string(f::kMetricUnit, unit);
    {
      protozero::pbf_writer g{m, f::kMetricGauge};
      protozero::pbf_writer p{g, f::kGaugePoints};
      p.add_fixed64(f::kPointTime, unixNs(ts_ns));
      p.add_double(f::kPointDouble, value);
      if (gpu) addAttr(p, f::kPointAttributes, "gpu", static_cast<int64_t>(*gpu));
    }
    ++points;
    m.commit();  // before added() may send the request and start a new one
    metrics_.added();
  }

  const ScopePass& scopes_;
  RequestBuilder& spans_;
  RequestBuilder& metrics_;
  std::string trace_id_;
  std::map<uint32_t, KernelDef> defs_;
  std::map<uint32_t, std::vector<std::pair<int64_t, uint64_t>>> by_path_;
};

std::string encodeResource(const SessionStart& s) {
  std::string out;
  protozero::pbf_writer r{out};
  int a = f::kResourceAttributes;
  addAttr(r, a, "service.name", s.app.empty() ? std::string("gpufl") : s.app);
  addAttr(r, a, "host.name", s.host);
  addAttr(r, a, "process.pid", s.pid);
  addAttr(r, a, "gpufl.session_id", s.session_id);
  addAttr(r, a, "gpufl.engine", std::string(engineName(s.engine)));
  std::string uuids;
  for (const DeviceInfo& d : s.devices) {
    if (d.uuid.empty() || uuids.find(d.uuid) != std::string::npos) continue;
    uuids += (uuids.empty() ? "" : ",") + d.uuid;
  }
  if (!uuids.empty()) addAttr(r, a, "gpufl.gpu.uuid", uuids);
  return out;
}

// Ends a read early once `stop` is set: the reader stops at an exception from its visitor (and says
// so in a warning nobody reads here). Looked at every 4096 of the numerous records.
class StopCheck final : public ForwardingVisitor {
 public:
  StopCheck(EventVisitor& next, const std::atomic<bool>* stop)
      : ForwardingVisitor(next), stop_(stop) {}
  void onKernel(const KernelEvent& e) override { tick(), next_.onKernel(e); }
  void onScopeBegin(const ScopeBegin& e) override { tick(), next_.onScopeBegin(e); }
  void onScopeEnd(const ScopeEnd& e) override { tick(), next_.onScopeEnd(e); }
  void onMemcpy(const MemcpyEvent& e) override { tick(), next_.onMemcpy(e); }
  void onGpuSample(const GpuSample& e) override { tick(), next_.onGpuSample(e); }
  void onHostSample(const HostSample& e) override { tick(), next_.onHostSample(e); }

 private:
  void tick() {
    if (stop_ != nullptr && ++records_ % 4096 == 0 && stop_->load())
      throw std::runtime_error("stopped");
  }
  const std::atomic<bool>* stop_;
  uint64_t records_ = 0;
};

}  // namespace

OtlpExportResult exportSessionOtlp(const std::string& prefix, const std::string& sid,
                                   size_t max_items, const std::atomic<bool>* stop,
                                   const std::function<bool(OtlpRequest&&)>& emit) {
  OtlpExportResult result;
  log::ReadOptions ro;
  ro.session = sid;
  ScopePass scopes;
  const auto stopped = [&] { return stop != nullptr && stop->load(); };
  log::ReadResult r1;
  {
    StopCheck checked(scopes, stop);
    r1 = log::readPrefix(prefix, ro, checked);
  }
  if (stopped()) {
    result.error = "export abandoned";
    return result;
  }
  if (!r1.any_readable || scopes.start.session_id.empty()) {
    result.error = prefix + ": session " + sid + " has no readable session_start";
    return result;
  }
  std::string resource = encodeResource(scopes.start);
  RequestBuilder spans(OtlpRequest::Kind::Traces, resource, max_items, emit);
  RequestBuilder metrics(OtlpRequest::Kind::Metrics, resource, max_items, emit);
  const std::string& session_id = scopes.start.session_id;
  std::string trace_id = traceIdOf(session_id);
  auto unixNs = [&](int64_t ns) {
    return static_cast<uint64_t>(scopes.start.start_unix_ns + (ns - scopes.start.start_ns));
  };
  for (const ScopeSpan& s : scopes.scopes) {
    {  // the span is committed before added() may send the request and start a new one
      protozero::pbf_writer span{spans.items(), f::kScopeDataItems};
      span.add_bytes(f::kSpanTraceId, trace_id);
      span.add_bytes(f::kSpanId, spanIdOf(session_id, 's', s.id));
      if (s.parent != 0) span.add_bytes(f::kSpanParent, spanIdOf(session_id, 's', s.parent));
      span.add_string(f::kSpanName, s.name);
      span.add_enum(f::kSpanKind, f::kSpanKindInternal);
      span.add_fixed64(f::kSpanStart, unixNs(s.begin_ns));
      // A scope still open at the end of the log (the program died in it) ends with the session.
      span.add_fixed64(f::kSpanEnd,
                       unixNs(s.end_ns >= 0 ? s.end_ns : std::max(s.begin_ns, scopes.end_ns)));
      int a = f::kSpanAttributes;
      addAttr(span, a, "gpufl.kind", std::string("scope"));
      if (!s.tag.empty()) addAttr(span, a, "gpufl.scope.tag", s.tag);
      addAttr(span, a, "gpufl.scope.depth", static_cast<int64_t>(s.depth));
      addAttr(span, a, "thread.id", s.tid);
    }
    ++result.spans;
    if (!spans.added()) {
      result.error = "export abandoned";
      return result;
    }
  }
  EventPass events(scopes, spans, metrics);
  {
    StopCheck checked(events, stop);
    log::readPrefix(prefix, ro, checked);
  }
  result.spans += events.kernels;
  result.points = events.points;
  if (stopped() || !spans.flush() || !metrics.flush()) {
    result.error = "export abandoned";
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace gpufl::agent
