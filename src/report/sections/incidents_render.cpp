// The Incidents section: text and JSON, and what to try after each kind of incident. Both
// renderers read the IncidentSummary and the same helpers, so they agree.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/demangle.hpp"
#include "report/sections/incidents.hpp"
#include "report/sections/section.hpp"

namespace gpufl::report {
namespace {

constexpr size_t kShownSuspects = 4;  // the others are counted
constexpr size_t kShownOthers = 3;    // launches in flight that are not suspects
constexpr size_t kShownFrames = 3;
constexpr size_t kShownStalls = 3;

std::string seconds(int64_t ns) {
  return formatFixed(static_cast<double>(ns) / 1e9, 3) + " s";
}

std::string hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

// "stream 7" (CUPTI's id), else the handle the launch named.
std::string streamText(uint32_t stream, uint64_t handle) {
  if (stream != 0) return "stream " + std::to_string(stream);
  return handle == 0 ? "the default stream" : "stream " + hex(handle);
}

std::string ago(int64_t ns) {
  return ns < 0 ? std::string() : formatDuration(static_cast<double>(ns)) + " before";
}

std::string scopeName(const Report& r, uint32_t path) {
  return scopePathName(r.scopes, path);
}

std::vector<const IncidentLaunch*> suspects(const IncidentView& v) {
  std::vector<const IncidentLaunch*> out;
  for (const IncidentLaunch& l : v.launches)
    if (l.suspect) out.push_back(&l);
  return out;
}

// "cudaErrorIllegalAddress (700) in cudaDeviceSynchronize"; "" when the record names no error.
std::string errorText(const IncidentView& v) {
  std::string s = v.error_name;
  if (v.error_code) s += (s.empty() ? "" : " ") + ("(" + std::to_string(*v.error_code) + ")");
  if (!s.empty() && !v.api.empty()) s += " in " + v.api;
  return s;
}

std::string gpuStateText(const IncidentView& v) {
  std::string s;
  auto add = [&](const std::string& part) { s += (s.empty() ? "" : ", ") + part; };
  if (v.gpu_util) add("util " + std::to_string(*v.gpu_util) + "%");
  if (v.gpu_temp_c) add(std::to_string(*v.gpu_temp_c) + " C");
  if (v.gpu_clk_sm) add("SM " + std::to_string(*v.gpu_clk_sm) + " MHz");
  if (v.gpu_power_mw) add(formatFixed(static_cast<double>(*v.gpu_power_mw) / 1000.0, 1) + " W");
  if (!s.empty() && v.gpu_sample_age_ns)
    s += " (sample " + formatDuration(static_cast<double>(*v.gpu_sample_age_ns)) + " old)";
  return s;
}

std::string nvmlMemoryText(const IncidentView& v) {
  if (!v.gpu_mem_used_bytes || !v.gpu_mem_total_bytes) return "";
  return formatBytes(*v.gpu_mem_used_bytes) + " used of " + formatBytes(*v.gpu_mem_total_bytes) +
         " (NVML)";
}

std::string stallsText(const FunctionProfile& f) {
  std::string s;
  for (size_t i = 0; i < f.stalls.size() && i < kShownStalls; ++i) {
    const double pct = f.stall_samples ? 100.0 * static_cast<double>(f.stalls[i].samples) /
                                             static_cast<double>(f.stall_samples)
                                       : 0;
    s += (i ? ", " : "") + f.stalls[i].label + " (" + formatPercent(pct) + ")";
  }
  return s;
}

// The source line of the function's most sampled instruction ("" when the samples name none).
std::string hotSource(const FunctionProfile& f) {
  for (const HotInstruction& h : f.hot)
    if (!h.source.empty()) return h.source;
  return "";
}

void adviceCudaError(const IncidentView& v, const Report& r, std::vector<std::string>& out) {
  const std::vector<const IncidentLaunch*> s = suspects(v);
  out.push_back(
      "Run the program under compute-sanitizer (compute-sanitizer --tool memcheck "
      "<program>): it names " +
      (s.size() == 1 ? "the thread, address and source line where " + s.front()->name + " faults."
                     : std::string("the faulting kernel, thread, address and source "
                                   "line.")));
  out.push_back(
      s.size() == 1
          ? "CUDA_LAUNCH_BLOCKING=1 confirms it: every launch then finishes before the next, so "
            "the error comes back from the faulting kernel's own launch (slow: for debugging)."
          : "Set CUDA_LAUNCH_BLOCKING=1 for an exact attribution: every launch then finishes "
            "before the next, so the error comes back from the faulting kernel's own launch "
            "(slow: for debugging).");
  for (const IncidentLaunch* l : s) {
    if (l->scope_path == 0) continue;
    out.push_back("Look first at scope " + scopeName(r, l->scope_path) + ", where " + l->name +
                  " was launched: the indices and sizes it hands the kernel.");
    break;
  }
}

void adviceHang(const IncidentView& v, const Report& r, std::vector<std::string>& out) {
  size_t shown = 0;
  for (const IncidentLaunch* l : suspects(v)) {
    if (shown++ == kShownSuspects) break;
    std::string s = streamText(l->stream, l->stream_handle) + " is stuck in " + l->name;
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    if (l->age_ns >= 0) s += ", launched " + ago(l->age_ns);
    if (l->scope_path != 0) s += " in scope " + scopeName(r, l->scope_path);
    out.push_back(s + ": a kernel that waits for a flag, a lock or other work, or loops forever.");
  }
  const std::vector<const FunctionProfile*> profiles = hangProfiles(v, r);
  for (const FunctionProfile* f : profiles) {
    std::string s =
        "PC sampling saw " + readableKernelName(f->func) + " stall on " + stallsText(*f);
    const std::string source = hotSource(*f);
    out.push_back(s + (source.empty() ? "." : "; its most sampled line: " + source + "."));
  }
  if (profiles.empty() && !suspects(v).empty())
    out.push_back(
        "Record with the PcSampling engine (gpufl trace --engine PcSampling): samples "
        "keep coming from a kernel that still runs, with the line it spins on.");
  const std::string pid = r.session.pid > 0 ? std::to_string(r.session.pid) : "PID";
  for (const IncidentBlocked& b : v.blocked) {
    out.push_back("Thread " + std::to_string(b.tid) + " waits in " + b.api +
                  ": py-spy dump --pid " + pid + " (Python) or gdb -p " + pid +
                  " -batch -ex 'thread apply all bt' shows where every thread is.");
    break;
  }
}

void adviceOom(const IncidentView& v, const Report& r, std::vector<std::string>& out) {
  if (!v.memory.holders.empty()) {
    const IncidentHolder& h = v.memory.holders.front();
    out.push_back("Scope " + scopeName(r, h.scope_path) +
                  " held the most: " + formatBytes(h.bytes) + " in " + formatCount(h.allocs) +
                  (h.allocs == 1 ? " allocation" : " allocations") +
                  ". Free or shrink what it keeps before this point.");
  } else if (!v.memory.from_events) {
    out.push_back(
        "Record memory events (gpufl trace --memory, GPUFL_MEMORY_EVENTS=1) to see "
        "which scopes held the memory.");
  }
  out.push_back(
      "PyTorch: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True cuts fragmentation; "
      "torch.cuda.empty_cache() hands cached blocks back; "
      "torch.cuda.memory_summary() shows what the caching allocator holds.");
  out.push_back(
      "JAX: XLA_PYTHON_CLIENT_PREALLOCATE=false stops it taking 75% of the memory at "
      "start; XLA_PYTHON_CLIENT_MEM_FRACTION=.5 sets the share it takes.");
}

void adviceSignal(const IncidentView& v, std::vector<std::string>& out) {
  if (v.error_name == "SIGABRT") {
    out.push_back(
        "abort(): an assertion failed or a library gave up; its message is on stderr "
        "just before.");
  }
  out.push_back(
      "gpufl handed the signal on unchanged: the core dump is the program's own "
      "(ulimit -c unlimited, then gdb <program> core or coredumpctl gdb), or run it "
      "under gdb --args <program> to stop at the faulting line.");
}

}  // namespace

std::vector<const FunctionProfile*> hangProfiles(const IncidentView& v, const Report& r) {
  std::vector<const FunctionProfile*> out;
  for (const IncidentLaunch* l : suspects(v)) {
    if (l->kind != "kernel") continue;
    for (const FunctionProfile& f : r.profile.functions) {
      if (f.func != l->mangled || f.stall_samples == 0) continue;
      if (std::find(out.begin(), out.end(), &f) == out.end()) out.push_back(&f);
    }
  }
  return out;
}

std::vector<std::string> incidentAdvice(const IncidentView& v, const Report& r) {
  std::vector<std::string> out;
  if (v.kind == "cuda_error") {
    adviceCudaError(v, r, out);
    out.push_back(
        "Without gpufl, CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 has the driver write a GPU "
        "core dump naming the kernel, PC and line (cuda-gdb opens it); no dump is "
        "written while a CUPTI subscriber such as gpufl is attached: a last resort.");
  } else if (v.kind == "hang") {
    adviceHang(v, r, out);
  } else if (v.kind == "out_of_memory") {
    adviceOom(v, r, out);
  } else if (v.kind == "signal") {
    adviceSignal(v, out);
  } else if (v.kind == "terminate") {
    out.push_back(
        "An uncaught exception ended the program (the reason says which): catch it, "
        "or run under gdb with 'catch throw' to see where it was thrown.");
  } else if (v.kind == "xid") {
    out.push_back(
        "The driver saw the GPU fail (the reason says which Xid and what it means): "
        "nvidia-smi -q and the kernel log (dmesg | grep -i xid) say more; Xids of the "
        "ECC, bus or firmware kind are the hardware's, not the program's.");
  } else if (v.kind == "dump") {
    out.push_back(
        "Informational: a snapshot asked for (gpufl dump, gpufl.dump, gpufl::dump); "
        "the launches in flight and the waiting threads show what the program did.");
  }
  return out;
}

// ---- text -----------------------------------------------------------------------------------

namespace {

// "  Label:   value", wrapped under the value; an empty label continues the field above.
void field(TextOut& out, std::string_view label, const std::string& value) {
  if (value.empty()) return;
  const std::string indent(2 + kTopLabelWidth, ' ');
  out.wrapped(value, kRuleWidth,
              label.empty() ? indent : "  " + padRight(std::string(label) + ":", kTopLabelWidth),
              indent);
}

// A line under the field above; `extra` more columns of indent.
void more(TextOut& out, const std::string& value, size_t extra = 0) {
  const std::string indent(2 + kTopLabelWidth + extra, ' ');
  out.wrapped(value, kRuleWidth, indent, indent + "  ");
}

// A launch in flight: name, where and when it was launched, its scope and stack. `number` ("2. ")
// before the name when several are listed; the lines below it are indented past it.
void launchLines(TextOut& out, const char* label, const std::string& number,
                 const IncidentLaunch& l, const Report& r) {
  field(out, label, number + l.name + " (" + l.kind + ", corr " + std::to_string(l.corr) + ")");
  const size_t in = number.size();
  std::string where = "on " + streamText(l.stream, l.stream_handle);
  if (l.tid != 0) where += " by thread " + std::to_string(l.tid);
  if (l.age_ns >= 0) where += ", launched " + ago(l.age_ns);
  more(out, where, in);
  if (l.scope_path != 0) more(out, "in scope " + scopeName(r, l.scope_path), in);
  for (size_t i = 0; i < l.stack.size() && i < kShownFrames; ++i)
    more(out, i == 0 ? "at " + l.stack[i] : l.stack[i], in + (i == 0 ? 0 : 3));
}

void memoryLines(TextOut& out, const IncidentView& v, const Report& r) {
  if (v.requested_bytes) {
    std::string s = formatBytes(*v.requested_bytes);
    if (v.free_bytes && v.total_bytes)
      s += ", with " + formatBytes(*v.free_bytes) + " free of " + formatBytes(*v.total_bytes);
    field(out, "Requested", s);
  }
  const IncidentMemory& m = v.memory;
  if (!m.from_events) {
    field(out, "GPU Memory", nvmlMemoryText(v));
    return;
  }
  field(out, "Memory Held",
        formatBytes(m.live_bytes) + " in " + formatCount(m.live_allocs) +
            (m.live_allocs == 1 ? " allocation" : " allocations") +
            " (device memory, from the memory events before it" +
            (m.approximate ? "; approximate" : "") + ")");
  for (const IncidentHolder& h : m.holders)
    out.line(std::string(4 + kTopLabelWidth - 2, ' ') + padRight(scopeName(r, h.scope_path), 24) +
             padLeft(formatBytes(h.bytes), 10) + padLeft(formatCount(h.allocs), 6) + " x, max " +
             formatBytes(h.largest));
}

void incidentText(TextOut& out, const IncidentView& v, size_t number, const Report& r) {
  out.line("  #" + std::to_string(number) + " " + v.kind + " at " + seconds(v.at_ns) +
           " into the session");
  field(out, "What", v.reason);
  field(out, "Error", errorText(v));
  if (errorText(v).empty()) field(out, "Call", v.api);
  if (v.tid != 0 || v.scope_path != 0)
    field(out, "Thread",
          (v.tid != 0 ? std::to_string(v.tid) : std::string("(unknown)")) +
              (v.scope_path != 0 ? ", in scope " + scopeName(r, v.scope_path) : ""));
  const std::vector<const IncidentLaunch*> s = suspects(v);
  for (size_t i = 0; i < s.size() && i < kShownSuspects; ++i)
    launchLines(out, i == 0 ? (s.size() == 1 ? "Suspect" : "Suspects") : "",
                s.size() == 1 ? "" : std::to_string(i + 1) + ". ", *s[i], r);
  if (s.size() > kShownSuspects)
    more(out, "and " + formatCount(s.size() - kShownSuspects) + " more suspects");
  field(out, "How Sure", v.attribution);
  std::string others;
  size_t other_count = 0, shown = 0;
  for (const IncidentLaunch& l : v.launches) {
    if (l.suspect) continue;
    ++other_count;
    if (shown++ < kShownOthers)
      others += (others.empty() ? "" : "; ") + l.name + " (" +
                streamText(l.stream, l.stream_handle) + ")";
  }
  const uint64_t unlisted =
      v.in_flight_count - std::min<uint64_t>(v.in_flight_count, v.launches.size());
  other_count += unlisted;
  if (other_count > 0)
    field(out, s.empty() ? "In Flight" : "Also In Flight",
          formatCount(other_count) + (other_count == 1 ? " launch" : " launches") +
              (others.empty() ? "" : ": " + others) +
              (other_count > shown && shown > 0 ? "; ..." : ""));
  else if (v.in_flight_count == 0)
    field(out, "In Flight", "nothing: no launch gpufl saw was unfinished");
  for (size_t i = 0; i < v.blocked.size(); ++i) {
    const IncidentBlocked& b = v.blocked[i];
    std::string t = std::to_string(b.tid) + " in " + b.api;
    if (b.waited_ns >= 0) t += " for " + formatDuration(static_cast<double>(b.waited_ns));
    if (b.stream_handle != 0) t += " (stream " + hex(b.stream_handle) + ")";
    if (b.scope_path != 0) t += ", in scope " + scopeName(r, b.scope_path);
    field(out, i == 0 ? "Waiting Threads" : "", t);
  }
  for (size_t i = 0; i < v.last_kernels.size(); ++i) {
    const IncidentLastKernel& k = v.last_kernels[i];
    std::string t = streamText(k.stream, 0) + ": " + k.name;
    if (k.before_ns >= 0) t += ", ended " + ago(k.before_ns);
    field(out, i == 0 ? "Last Kernels" : "", t);
  }
  memoryLines(out, v, r);
  field(out, "GPU", gpuStateText(v));
  const std::vector<std::string> advice = incidentAdvice(v, r);
  if (!advice.empty()) {
    out.line("  What To Try:");
    for (const std::string& a : advice) out.wrapped(a, kRuleWidth, "    * ", "      ");
  }
}

}  // namespace

bool incidentsInText(const Report& r) {
  return !r.incidents.incidents.empty() || (!r.session.ended && r.session.started);
}

void renderIncidentsText(TextOut& out, const Report& r, const ReportOptions&) {
  const IncidentSummary& s = r.incidents;
  const size_t n = s.incidents.size() + s.dropped;
  if (!r.session.ended && r.session.started) {
    out.wrapped(
        "The program ended without a session_end: it crashed or was killed (or it still "
        "runs); " +
            (n == 0 ? std::string("no incidents") : formatCount(n)) +
            (n == 1   ? " incident"
             : n == 0 ? ""
                      : " incidents") +
            " recorded.",
        kRuleWidth, "  ", "  ");
  }
  if (s.incidents.empty()) return;
  if (!r.session.ended && r.session.started) out.line();
  out.banner("Incidents");
  for (size_t i = 0; i < s.incidents.size(); ++i) {
    if (i > 0) out.line();
    incidentText(out, s.incidents[i], i + 1, r);
  }
  if (s.dropped > 0) out.line("  " + formatCount(s.dropped) + " more incidents are not shown.");
  if (s.left_out > 0)
    out.wrapped(formatCount(s.left_out) +
                    " more were not recorded: repeats (the same error on the same context, out of "
                    "memory within 10 s) or past the 32 a session records.",
                kRuleWidth, "  ", "  ");
}

// ---- JSON -----------------------------------------------------------------------------------

namespace {

template <typename T>
void optional(JsonWriter& w, std::string_view key, const std::optional<T>& v) {
  w.key(key);
  if (v)
    w.value(*v);
  else
    w.null();
}

void launchJson(JsonWriter& w, const IncidentLaunch& l, const Report& r) {
  w.beginObject();
  w.field("corr", l.corr);
  w.field("kind", l.kind);
  w.field("name", l.name);
  w.field("mangled", l.mangled);
  w.field("stream", l.stream);
  w.field("stream_handle", l.stream_handle);
  w.field("context", l.context);
  w.field("tid", l.tid);
  w.field("scope", l.scope_path);
  w.field("scope_name", scopeName(r, l.scope_path));
  w.key("stack").beginArray();
  for (const std::string& f : l.stack) w.value(f);
  w.endArray();
  w.key("age_ns");
  l.age_ns >= 0 ? w.value(l.age_ns) : w.null();
  w.field("suspect", l.suspect);
  w.endObject();
}

void memoryJson(JsonWriter& w, const IncidentMemory& m, const Report& r) {
  w.key("memory").beginObject();
  w.field("from_events", m.from_events);
  w.field("approximate", m.approximate);
  w.field("live_allocs", m.live_allocs);
  w.field("live_bytes", m.live_bytes);
  w.key("holders").beginArray();
  for (const IncidentHolder& h : m.holders) {
    w.beginObject();
    w.field("scope", h.scope_path);
    w.field("scope_name", scopeName(r, h.scope_path));
    w.field("allocs", h.allocs);
    w.field("bytes", h.bytes);
    w.field("largest", h.largest);
    w.endObject();
  }
  w.endArray();
  w.endObject();
}

void profileJson(JsonWriter& w, const IncidentView& v, const Report& r) {
  w.key("hang_profiles").beginArray();
  for (const FunctionProfile* f : hangProfiles(v, r)) {
    w.beginObject();
    w.field("function", f->name);
    w.field("func", f->func);
    w.field("samples", f->stall_samples);
    w.key("stalls").beginArray();
    for (size_t i = 0; i < f->stalls.size() && i < kShownStalls; ++i) {
      w.beginObject();
      w.field("reason", f->stalls[i].reason);
      w.field("label", f->stalls[i].label);
      w.field("samples", f->stalls[i].samples);
      w.endObject();
    }
    w.endArray();
    w.field("source", hotSource(*f));
    w.endObject();
  }
  w.endArray();
}

void incidentJson(JsonWriter& w, const IncidentView& v, const Report& r) {
  w.beginObject();
  w.field("ts_ns", v.ts_ns);
  w.field("at_ns", v.at_ns);
  w.field("kind", v.kind);
  w.field("reason", v.reason);
  w.field("api", v.api);
  optional(w, "error_code", v.error_code);
  w.field("error_name", v.error_name);
  w.field("tid", v.tid);
  w.field("scope", v.scope_path);
  w.field("scope_name", scopeName(r, v.scope_path));
  w.field("attribution", v.attribution);
  optional(w, "requested_bytes", v.requested_bytes);
  optional(w, "free_bytes", v.free_bytes);
  optional(w, "total_bytes", v.total_bytes);
  w.field("in_flight_count", v.in_flight_count);
  w.key("in_flight").beginArray();
  for (const IncidentLaunch& l : v.launches) launchJson(w, l, r);
  w.endArray();
  w.key("blocked").beginArray();
  for (const IncidentBlocked& b : v.blocked) {
    w.beginObject();
    w.field("tid", b.tid);
    w.field("api", b.api);
    w.key("waited_ns");
    b.waited_ns >= 0 ? w.value(b.waited_ns) : w.null();
    w.field("stream_handle", b.stream_handle);
    w.field("scope", b.scope_path);
    w.field("scope_name", scopeName(r, b.scope_path));
    w.endObject();
  }
  w.endArray();
  w.key("last_kernels").beginArray();
  for (const IncidentLastKernel& k : v.last_kernels) {
    w.beginObject();
    w.field("stream", k.stream);
    w.field("name", k.name);
    w.field("corr", k.corr);
    w.key("before_ns");
    k.before_ns >= 0 ? w.value(k.before_ns) : w.null();
    w.endObject();
  }
  w.endArray();
  memoryJson(w, v.memory, r);
  w.key("gpu").beginObject();
  optional(w, "mem_used_bytes", v.gpu_mem_used_bytes);
  optional(w, "mem_total_bytes", v.gpu_mem_total_bytes);
  optional(w, "util", v.gpu_util);
  optional(w, "temp_c", v.gpu_temp_c);
  optional(w, "clk_sm", v.gpu_clk_sm);
  optional(w, "power_mw", v.gpu_power_mw);
  optional(w, "sample_age_ns", v.gpu_sample_age_ns);
  w.endObject();
  profileJson(w, v, r);
  w.key("advice").beginArray();
  for (const std::string& a : incidentAdvice(v, r)) w.value(a);
  w.endArray();
  w.endObject();
}

}  // namespace

void renderIncidentsJson(JsonWriter& w, const Report& r, const ReportOptions&) {
  w.key("incidents").beginArray();
  for (const IncidentView& v : r.incidents.incidents) incidentJson(w, v, r);
  w.endArray();
  if (r.incidents.dropped > 0) w.field("incidents_not_shown", r.incidents.dropped);
  if (r.incidents.left_out > 0) w.field("incidents_not_recorded", r.incidents.left_out);
}

namespace sections {
extern const Section kIncidents = {
    .name = "incidents",
    .text = renderIncidentsText,
    .in_text = incidentsInText,
    .json = renderIncidentsJson,
};
}  // namespace sections

}  // namespace gpufl::report
