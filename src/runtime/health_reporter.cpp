#include "runtime/health_reporter.hpp"

#include <algorithm>
#include <utility>

#include "host/thread_usage.hpp"

namespace gpufl::runtime {

std::string threadRole(std::string_view name) {
  constexpr std::string_view kPrefix = "gpufl-";
  if (name.substr(0, kPrefix.size()) != kPrefix) return "";
  const std::string_view rest = name.substr(kPrefix.size());
  if (rest == "zstd") return "compressor";
  return std::string(rest);
}

HealthReporter::HealthReporter(HealthConfig config)
    : config_(std::move(config)), steps_(config_.limits) {}

void HealthReporter::begin(int64_t now_ns) {
  start_ns_ = last_ns_ = now_ns;
  rss0_ = host::readResidentBytes(config_.proc_root).value_or(0);
}

void HealthReporter::measure(Health& h, int64_t now_ns, uint64_t records, uint64_t writer_cpu_ns,
                             const std::vector<core::Collector::ThreadRole>& threads) {
  h.ts_ns = now_ns;
  h.period_ns = now_ns - last_ns_;
  std::map<int64_t, std::string> named;  // the collectors' threads, by id
  for (const auto& t : threads) named[t.tid] = t.role;
  const auto usage = host::readThreadUsage(config_.proc_root, [&](int64_t tid, std::string_view n) {
    return named.count(tid) > 0 || !threadRole(n).empty();
  });
  for (const host::ThreadUsage& t : usage) {
    auto it = named.find(t.tid);
    const std::string role = it != named.end() ? it->second : threadRole(t.name);
    if (role == "writer" && writer_cpu_ns > 0) continue;  // its own measure, below
    auto [seen, fresh] = seen_.try_emplace(t.tid, role, 0);
    // A thread id reused by a new thread starts from zero again.
    if (!fresh && (seen->second.first != role || t.cpu_ns < seen->second.second))
      seen->second = {role, 0};
    role_ns_[role] += t.cpu_ns - seen->second.second;
    seen->second.second = t.cpu_ns;
  }
  if (writer_cpu_ns > 0) role_ns_["writer"] = writer_cpu_ns;
  // A collector's own measure of its thread (it outlives the thread, whose /proc entry is gone once
  // stopped: the last record's case).
  for (const auto& [role, ns] : h.cpu_ns) role_ns_[role] = std::max(role_ns_[role], ns);
  h.cpu_ns = role_ns_;
  uint64_t cpu = 0;
  for (const auto& [role, ns] : role_ns_) cpu += ns;
  if (h.period_ns > 0) {
    h.cpu_pct = static_cast<double>(cpu - std::min(cpu, last_cpu_ns_)) * 100.0 /
                static_cast<double>(h.period_ns);
    h.records_per_s = static_cast<double>(records - std::min(records, last_records_)) * 1e9 /
                      static_cast<double>(h.period_ns);
  }
  h.records = records;
  if (const auto rss = host::readResidentBytes(config_.proc_root)) {
    h.rss_bytes = *rss;
    h.rss_growth_bytes = static_cast<int64_t>(*rss) - static_cast<int64_t>(rss0_);
  }
  last_ns_ = now_ns;
  last_cpu_ns_ = cpu;
  last_records_ = records;
}

core::StepDecision HealthReporter::decide(Health& h, bool observe) {
  const core::StepDecision d =
      observe ? steps_.observe({h.cpu_pct, h.buffer_bytes}) : core::StepDecision{};
  if (steps_.deepPaused()) h.step_down.push_back("deep_engines_paused");
  if (steps_.samplingSlowdown() > 1)
    h.step_down.push_back("sampling_slowed_x" + std::to_string(steps_.samplingSlowdown()));
  if (steps_.atFloor()) h.step_down.push_back("floor");
  return d;
}

}  // namespace gpufl::runtime
