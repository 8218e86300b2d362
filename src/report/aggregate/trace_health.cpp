#include "report/aggregate/trace_health.hpp"

#include <algorithm>
#include <string_view>

#include "report/model/report_model.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

std::string records(uint64_t n, std::string_view what = "records") {
  return formatCount(n) + " " + std::string(n == 1 ? what.substr(0, what.size() - 1) : what);
}

// What a violation kind of the record checks means for the figures above it.
TraceHealthIssue violationIssue(const std::string& kind, uint64_t n, bool after_fault) {
  TraceHealthIssue i;
  i.kind = kind;
  i.count = n;
  if (kind == "zero_time") {
    i.what = records(n) + " without a start or end time (left out)";
    i.meaning = after_fault
                    ? "after the fatal CUDA error (Incidents) CUPTI delivers the faulted "
                      "context's kernels without times: expected; counts and GPU time above "
                      "leave them out"
                    : "kernel and copy counts and GPU time above are short by these records";
  } else if (kind == "reversed") {
    i.what = records(n) + " ending before they start (left out)";
    i.meaning = "kernel and copy counts and GPU time above are short by these records";
  } else if (kind == "before_launch") {
    i.what = records(n) +
             " starting before their own launch call, beyond the coarse clock's "
             "resolution";
    i.meaning =
        "their place on the host timeline is early (scope overlap, gaps between launches); "
        "durations are unaffected";
  } else if (kind == "in_future") {
    i.what = records(n) + " ending after the host's clock when written: their times are shifted";
    i.meaning = "their place on the timeline is wrong; durations are unaffected";
  } else if (kind == "implausible_duration") {
    i.what = records(n) + " longer than the session so far, or copies faster than the device";
    i.meaning = "their durations inflate GPU time, busy % and the transfer rates above";
  } else if (kind == "correlation_order") {
    i.what = formatCount(n) +
             " times a thread's correlation ids went against its launch order "
             "(ids wrapped, or a record met the wrong launch)";
    i.meaning = "scope and stack attribution of kernels around those points may be wrong";
  } else if (kind == "clock_step") {
    i.what = formatCount(n) + " jumps of the GPU-to-host clock offset";
    i.meaning =
        "records near a jump sit off the host timeline by up to the jump; gpufl corrected the "
        "records after it; durations are unaffected";
  } else if (kind == "clock_drift") {
    i.what = "the GPU-to-host clock offset drifted beyond 5 ms";
    i.meaning =
        "GPU times drift against host times (scopes, samples) by that much; durations "
        "are unaffected";
  } else {
    i.what = records(n) + " failed the check " + kind;
    i.meaning = "see docs/trace-health.md";
  }
  return i;
}

// What a session_end drop means for the figures above it.
TraceHealthIssue dropIssue(const std::string& key, uint64_t n, bool after_fault) {
  TraceHealthIssue i;
  i.kind = "dropped." + key;
  i.count = n;
  if (key == "activity") {
    i.what = records(n) + " dropped by CUPTI (its buffers were full)";
    i.meaning = "kernel and copy counts and GPU time above are short by about that many";
  } else if (key == "activity_buffers_refused") {
    i.what = formatCount(n) + " requests of CUPTI for a buffer refused (gpufl's were all in use)";
    i.meaning = "CUPTI dropped what it could not store (dropped.activity)";
  } else if (key == "launch_attribution") {
    i.what = formatCount(n) + " kernels whose launch was no longer known (written without scope)";
    i.meaning = "the Scope Summary misses their GPU time";
  } else if (key == "untimed_kernels" || key == "invalid_times") {
    i.what = records(n) + " without usable times (left out)";
    i.meaning = after_fault && key == "untimed_kernels"
                    ? violationIssue("zero_time", n, true).meaning
                    : "kernel and copy counts and GPU time above are short by these records";
  } else if (key == "write") {
    i.what = records(n) + " that could not be written to the log";
    i.meaning = "every figure above is short by what they held";
  } else if (key == "scope") {
    i.what = records(n, "scope records") + " dropped (a thread's buffer was full)";
    i.meaning = "scope counts and times above are incomplete";
  } else if (key == "system") {
    i.what = records(n, "system samples") + " dropped";
    i.meaning = "system metrics above average over fewer samples";
  } else if (key == "incidents") {
    i.what = formatCount(n) + " incidents left out (repeats, or beyond those recorded)";
    i.meaning = "the Incidents section shows the first ones only";
  } else {
    i.what = records(n) + " dropped (" + key + ")";
    i.meaning = "counts above are short by about that many";
  }
  return i;
}

}  // namespace

void TraceHealthAggregator::onHealth(const Health& e) {
  ++health_records_;
  cpu_pct_max_ = std::max(cpu_pct_max_, e.cpu_pct);
  buffer_bytes_max_ = std::max(buffer_bytes_max_, e.buffer_bytes);
  if (first_rss_ < 0 || (health_records_ > 1 && e.ts_ns < last_.ts_ns))
    first_rss_ = static_cast<int64_t>(e.rss_bytes);
  for (const auto& [key, n] : e.dropped)
    if (n > 0) drop_since_.try_emplace(key, e.ts_ns);
  if (!e.step_down.empty() && step_down_since_ == 0) step_down_since_ = e.ts_ns;
  if (health_records_ == 1 || e.ts_ns >= last_.ts_ns) last_ = e;
}

void TraceHealthAggregator::finish(Report& r) const {
  TraceHealth& t = r.trace_health;
  t.health_records = health_records_;
  t.read = read_;
  t.invalid_read = invalid_read_;
  const bool fault = firstIncident(r, "cuda_error") != nullptr;
  if (health_records_ > 0) {
    t.checked = last_.checked;
    t.cpu_ns = last_.cpu_ns;
    uint64_t cpu = 0;
    for (const auto& [role, ns] : last_.cpu_ns) cpu += ns;
    if (r.session.duration_ns > 0)
      t.cpu_pct = static_cast<double>(cpu) * 100.0 / static_cast<double>(r.session.duration_ns);
    t.cpu_pct_max = cpu_pct_max_;
    t.buffer_bytes_max = buffer_bytes_max_;
    if (health_records_ > 1)
      t.rss_growth_bytes = static_cast<int64_t>(last_.rss_bytes) - first_rss_;
    t.clock_mode = last_.clock_mode;
    t.clock_drift_ns = last_.clock_drift_ns;
    t.clock_correction_ns = last_.clock_correction_ns;
    t.cupti_version = last_.cupti_version;
    t.cupti_issues = last_.cupti_issues;
    t.step_down = last_.step_down;
    t.examples = last_.examples;
    for (const auto& [kind, n] : last_.violations) {
      if (n == 0) continue;
      TraceHealthIssue i = violationIssue(kind, n, fault);
      if (auto s = last_.violations_since_ns.find(kind); s != last_.violations_since_ns.end())
        i.since_ns = s->second;
      t.issues.push_back(std::move(i));
    }
  }
  if (invalid_read_ > 0) {
    TraceHealthIssue i;
    i.kind = "invalid_as_read";
    i.count = invalid_read_;
    i.what = records(invalid_read_) + " read with a zero time or ending before they start";
    i.meaning = "GPU time, durations and the timeline above include these wrong times";
    t.issues.push_back(std::move(i));
  }
  // Drops: session_end's, or the last health record's when the session did not end.
  const std::map<std::string, uint64_t>& dropped =
      r.session.ended ? r.collection.dropped : last_.dropped;
  for (const auto& [key, n] : dropped) {
    if (n == 0) continue;
    // Counted by the checks when the log has health records (zero_time, reversed).
    if (health_records_ > 0 && (key == "untimed_kernels" || key == "invalid_times")) continue;
    TraceHealthIssue i = dropIssue(key, n, fault);
    if (auto s = drop_since_.find(key); s != drop_since_.end()) i.since_ns = s->second;
    t.issues.push_back(std::move(i));
  }
  if (!r.session.ended && r.session.started) {
    TraceHealthIssue i;
    i.kind = "session_end";
    i.what = "no session_end: the program stopped before gpufl's shutdown";
    i.meaning = "drops and the last moments' records are unknown; figures above may be short";
    t.issues.push_back(std::move(i));
  }
  if (r.collection.reader_warnings > 0) {
    TraceHealthIssue i;
    i.kind = "reader";
    i.count = r.collection.reader_warnings;
    i.what = formatCount(i.count) + " damaged lines skipped by the reader";
    i.meaning = "records on those lines are missing from every figure above";
    t.issues.push_back(std::move(i));
  }
  if (!last_.step_down.empty()) {
    TraceHealthIssue i;
    i.kind = "step_down";
    i.count = last_.step_down.size();
    i.since_ns = step_down_since_;
    std::string given;
    for (const std::string& s : last_.step_down) given += (given.empty() ? "" : ", ") + s;
    i.what = "gpufl stepped down to stay within the user's limits: " + given;
    i.meaning =
        "deep-engine data covers only launches before then, and system samples are "
        "sparser after (the step_down note says which limit)";
    t.issues.push_back(std::move(i));
  }
  t.healthy = t.issues.empty();
}

}  // namespace gpufl::report
