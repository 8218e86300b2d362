#include "log/ndjson_format.hpp"

#include "core/bytes.hpp"
#include "core/checked_math.hpp"
#include "log/json_escape.hpp"
#include "log/json_fields.hpp"

namespace gpufl::log {
namespace {

using json::appendNumber, json::dim, json::end, json::head, json::key, json::num, json::object,
    json::opt, json::optStr, json::str, json::strings;

#define GFL_WRITE_FIELD_(member, key_, presence, unit) \
  recordField<key_, schema::Presence::presence>(out, e, e.member);

// One field of record `e`: as json::field writes the member, except a "dur_ns" row, whose member is
// the end time: the record carries the duration, end_ns - start_ns (wrapping: the reader's wrapAdd
// restores any times exactly).
template <json::Key K, schema::Presence P, typename E, typename M>
inline void recordField(std::string& out, const E& e, const M& m) {
  if constexpr (json::sameKey(K, "dur_ns")) {
    json::num<K>(out, wrapSub(e.end_ns, e.start_ns));
  } else {
    json::field<K, P>(out, m);
  }
}

// Every field of a device, each with its leading comma: shared by session_start.devices and
// `device`.
void deviceFields(std::string& out, const DeviceInfo& e) {
  GFL_FIELDS_DeviceInfo(GFL_WRITE_FIELD_)
}

void device(std::string& out, const DeviceInfo& d) {
  const size_t open = out.size();
  deviceFields(out, d);
  out[open] = '{';  // the first field's comma (id is always written)
  out.push_back('}');
}

}  // namespace

// The records whose fields are written exactly as their table (core/record_schema.hpp) lists them,
// in its order. The others below are hand-written where the wire form is not the members' values as
// such: session_start (option values as JSON text, devices only in the device channel),
// kernel_event (the delta encoding), copies and memory events (the memset type, alloc/free),
// system_sample (throttle_reasons follows throttle).
#define GFL_FORMAT_RECORD_(T)                        \
  void formatRecord(std::string& out, const T& e) {  \
    json::recordHead<T>(out, e.sid);                 \
    GFL_FIELDS_##T(GFL_WRITE_FIELD_) json::end(out); \
  }

KernelDeltaEncoder::State& KernelDeltaEncoder::stateFor(const std::string& sid) {
  const auto same = [&](const State& s) {
    return s.sid.size() == sid.size() && core::sameBytes(s.sid.data(), sid.data(), sid.size());
  };
  if (last_ < states_.size() && same(states_[last_])) return states_[last_];
  for (size_t i = 0; i < states_.size(); ++i) {
    if (same(states_[i])) return states_[last_ = i];
  }
  State s;
  s.sid = sid;
  head(s.head, "{\"type\":\"kernel_event\",\"sid\":", sid);
  states_.push_back(std::move(s));
  last_ = states_.size() - 1;
  return states_.back();
}

void KernelDeltaEncoder::appendChainEnds(std::string& out) const {
  for (const State& s : states_) {
    if (s.since_absolute < 2) continue;  // none yet, or the last one was absolute itself
    head(out, "{\"type\":\"kernel_chain\",\"sid\":", s.sid);
    num<"corr">(out, s.last_corr);
    num<"start_ns">(out, s.last_start_ns);
    end(out);
  }
}

void formatRecord(std::string& out, const SessionStart& e) {
  formatSessionStart(out, e, true);
}

void formatRecord(std::string& out, const KernelEvent& e) {
  formatKernelEventAbsolute(out, e);
}

void formatSessionStart(std::string& out, const SessionStart& e, bool with_devices) {
  head(out, "{\"type\":\"session_start\",\"sid\":", e.sid);
  num<"schema">(out, e.schema);
  str<"session_id">(out, e.session_id);
  str<"app">(out, e.app);
  num<"pid">(out, e.pid);
  str<"host">(out, e.host);
  str<"version">(out, e.version);
  str<"engine">(out, engineName(e.engine));
  num<"start_ns">(out, e.start_ns);
  num<"start_unix_ns">(out, e.start_unix_ns);
  // Option values are JSON text; anything that is not gets quoted, so one bad value cannot break
  // the line.
  object<"options">(out, e.options, [&](const std::string& v) {
    if (isJsonValue(v)) {
      out.append(v);
    } else {
      appendJsonString(out, v);
    }
  });
  if (with_devices) {
    key<"devices">(out);
    out.push_back('[');
    for (size_t i = 0; i < e.devices.size(); ++i) {
      if (i) out.push_back(',');
      device(out, e.devices[i]);
    }
    out.push_back(']');
  }
  end(out);
}

GFL_FORMAT_RECORD_(SessionEnd)

void formatRecord(std::string& out, const DeviceEvent& e) {
  head(out, "{\"type\":\"device\",\"sid\":", e.sid);
  deviceFields(out, e.device);
  end(out);
}

GFL_FORMAT_RECORD_(Note)

GFL_FORMAT_RECORD_(KernelDef)

// Hand-written, not generated from the field table: start and correlation id are differences from
// the previous kernel of the session (absolute at resync points), and the end is written as a
// duration, which is what makes millions of kernel events small; the per-file state lives in
// KernelDeltaEncoder. The table still lists every field, and schema_roundtrip_test drives this
// encoding with it. Field order is measured, not guessed: of the 24 orders of {dur_ns}, {k, stream,
// scope}, {dcorr}, {dt_ns}, this one compressed best with zstd -3 (7.8 vs 9.7 bytes per kernel for
// the worst, k..., dt_ns, dur_ns, dcorr; bench/bytes_per_kernel.sh). The start difference, the
// least predictable value, ends the line; the duration opens it, so that a recurring duration of a
// kernel and the fields that kernel repeats (k, stream, scope, the rare optionals, dcorr) form one
// match with an earlier launch.
// The fields both kernel_event encodings open with, in the measured order (above).
static void kernelFieldsBeforeTimes(json::NumberFields& f, const KernelEvent& e) {
  f.num<"dur_ns">(wrapSub(e.end_ns, e.start_ns));
  f.num<"k">(e.def_id);
  f.num<"stream">(e.stream);
  f.num<"scope">(e.scope_path);
  if (e.stack_id) f.num<"stack">(e.stack_id);
  if (e.graph_id) f.num<"graph">(e.graph_id);
  if (e.instrumented) f.num<"instr">(true);
}

void formatKernelEvent(std::string& out, const KernelEvent& e, KernelDeltaEncoder& delta) {
  KernelDeltaEncoder::State& s = delta.stateFor(e.sid);
  const bool absolute =
      s.since_absolute == 0 || s.since_absolute >= KernelDeltaEncoder::kResyncInterval;
  json::NumberFields f(out, s.head);
  // dur_ns and dt_ns wrap (no overflow for any times): the reader's wrapAdd restores them exactly.
  kernelFieldsBeforeTimes(f, e);
  if (absolute) {
    // A resync point after earlier kernels also gives the differences, from which a reader that
    // lost a line before it places the kernels in between (once per kResyncInterval: no
    // measurable size).
    if (s.since_absolute > 0) {
      f.num<"dcorr">(static_cast<int64_t>(e.correlation_id - s.last_corr));
      f.num<"dt_ns">(e.start_ns - s.last_start_ns);
    }
    f.num<"corr">(e.correlation_id);
    f.num<"start_ns">(e.start_ns);
    s.since_absolute = 0;
  } else {
    // Correlation ids are unsigned, but a difference may be negative: wrap-around arithmetic gives
    // it exactly.
    f.num<"dcorr">(static_cast<int64_t>(e.correlation_id - s.last_corr));
    f.num<"dt_ns">(wrapSub(e.start_ns, s.last_start_ns));
  }
  ++s.since_absolute;
  s.last_start_ns = e.start_ns;
  s.last_corr = e.correlation_id;
  f.endLine(out);
}

void formatKernelEventAbsolute(std::string& out, const KernelEvent& e) {
  head(out, "{\"type\":\"kernel_event\",\"sid\":", e.sid);
  json::NumberFields f;
  kernelFieldsBeforeTimes(f, e);
  f.num<"corr">(e.correlation_id);
  f.num<"start_ns">(e.start_ns);
  f.num<"end_ns">(e.end_ns);
  f.endLine(out);
}

void formatRecord(std::string& out, const MemcpyEvent& e) {
  if (e.is_memset) {
    head(out, "{\"type\":\"memset_event\",\"sid\":", e.sid);
  } else {
    head(out, "{\"type\":\"memcpy_event\",\"sid\":", e.sid);
  }
  // Order measured like kernel_event's (bench/bytes_per_kernel.sh): 9% smaller than the documented
  // order.
  num<"corr">(out, e.correlation_id);
  num<"start_ns">(out, e.start_ns);
  if (!e.is_memset) str<"kind">(out, copyKindName(e.kind));
  num<"bytes">(out, e.bytes);
  num<"device">(out, e.device);
  num<"stream">(out, e.stream);
  num<"scope">(out, e.scope_path);
  optStr<"src_kind">(out, e.src_kind);
  optStr<"dst_kind">(out, e.dst_kind);
  opt<"value">(out, e.value);
  num<"dur_ns">(out, wrapSub(e.end_ns, e.start_ns));
  end(out);
}

GFL_FORMAT_RECORD_(SyncEvent)

void formatRecord(std::string& out, const MemoryEvent& e) {
  head(out, "{\"type\":\"memory_event\",\"sid\":", e.sid);
  num<"corr">(out, e.correlation_id);
  num<"ts_ns">(out, e.ts_ns);
  str<"op">(out, e.is_free ? "free" : "alloc");
  num<"bytes">(out, e.bytes);
  num<"address">(out, e.address);
  num<"device">(out, e.device);
  optStr<"kind">(out, e.memory_kind);
  if (e.stream) num<"stream">(out, e.stream);
  if (e.scope_path) num<"scope">(out, e.scope_path);
  end(out);
}

GFL_FORMAT_RECORD_(StackDef)

GFL_FORMAT_RECORD_(ScopePath)

GFL_FORMAT_RECORD_(ScopeBegin)

GFL_FORMAT_RECORD_(ScopeEnd)

void formatRecord(std::string& out, const GpuSample& e) {
  head(out, "{\"type\":\"system_sample\",\"sid\":", e.sid);
  num<"gpu">(out, e.gpu);
  num<"ts_ns">(out, e.ts_ns);
  opt<"util_gpu">(out, e.util_gpu);
  opt<"util_mem">(out, e.util_mem);
  opt<"mem_used_bytes">(out, e.mem_used_bytes);
  opt<"mem_total_bytes">(out, e.mem_total_bytes);
  opt<"temp_c">(out, e.temp_c);
  opt<"power_mw">(out, e.power_mw);
  opt<"power_limit_mw">(out, e.power_limit_mw);
  opt<"energy_mj">(out, e.energy_mj);
  opt<"clk_sm">(out, e.clk_sm);
  opt<"clk_mem">(out, e.clk_mem);
  opt<"clk_gfx">(out, e.clk_gfx);
  opt<"pcie_rx_kbps">(out, e.pcie_rx_kbps);
  opt<"pcie_tx_kbps">(out, e.pcie_tx_kbps);
  opt<"throttle">(out, e.throttle);
  // Reasons are meaningful only with the bitmask they decode; an empty list next to a bitmask says
  // "none".
  if (e.throttle || !e.throttle_reasons.empty())
    strings<"throttle_reasons">(out, e.throttle_reasons);
  end(out);
}

GFL_FORMAT_RECORD_(HostSample)

GFL_FORMAT_RECORD_(SassMetric)

GFL_FORMAT_RECORD_(PcSample)

GFL_FORMAT_RECORD_(RangeCounters)

GFL_FORMAT_RECORD_(BenchmarkResult)

GFL_FORMAT_RECORD_(Incident)

GFL_FORMAT_RECORD_(Health)

}  // namespace gpufl::log
