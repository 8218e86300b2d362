// The session's health records (health_reporter.hpp, docs/trace-health.md): put together from the
// collectors' parts and the session's own counts, written to the log, and the step-down acted on
// when gpufl's cost crossed the user's limits.
#include <cstdio>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "core/thread_buffer.hpp"
#include "log/log_writer.hpp"
#include "runtime/session.hpp"

namespace gpufl::runtime {

void Session::startHealth() {
  const InitOptions& o = config_.options;
  HealthConfig config;
  config.period_ns = int64_t{o.health_period_s} * 1'000'000'000;
  config.limits.max_cpu_pct = o.max_cpu_pct;
  config.limits.max_memory_bytes = uint64_t(o.max_memory_mb) << 20;
  for (const auto& c : collectors_) {
    config.limits.deep_engines = config.limits.deep_engines || c->runsDeepEngines();
    config.limits.sampling = config.limits.sampling || c->samples();
  }
  health_ = std::make_unique<HealthReporter>(std::move(config));
  health_->begin(core::monotonicNs());
}

void Session::fillDropped(std::map<std::string, uint64_t>& dropped) const {
  dropped["scope"] = dropped_[static_cast<int>(core::Source::Scope)];
  dropped["launch"] = dropped_[static_cast<int>(core::Source::Launch)];
  if (uint64_t other = dropped_[static_cast<int>(core::Source::Other)]) dropped["other"] = other;
  if (uint64_t incidents = flight_.suppressed()) dropped["incidents"] = incidents;
  if (log_) dropped["write"] = log_->stats().records_dropped;
}

void Session::writeHealth(int64_t now_ns, bool final) noexcept {
  if (!health_ || !sink_) return;
  try {
    Health h;
    h.sid = start_.sid;
    h.final = final;
    std::vector<core::Collector::ThreadRole> threads;
    for (size_t i = 0; i < collectors_.size(); ++i) {
      try {
        collectors_[i]->health(h, threads);
      } catch (...) {
        collectorFailed(i, "exception", "health");
      }
    }
    fillDropped(h.dropped);
    h.kernels = sink_->kernels();
    h.buffer_bytes += core::ThreadBufferRegistry::global().bufferCount() *
                      core::kThreadBufferRecords * sizeof(core::Record);
    health_->measure(h, now_ns, log_ ? log_->stats().records : 0, writer_.cpuNs(), threads);
    const core::StepDecision step = health_->decide(h, /*observe=*/!final);
    sink_->onHealth(h);
    if (step.action == core::StepAction::None) return;
    std::string what;
    switch (step.action) {
      case core::StepAction::PauseDeepEngines: {
        bool paused = false;
        for (auto& c : collectors_) paused = c->pauseDeepEngines() || paused;
        what = paused ? "deep engines paused: new launches and scopes are no longer instrumented "
                        "(what they collected is kept)"
                      : "no deep engine to pause";
        break;
      }
      case core::StepAction::SlowSampling: {
        bool slowed = false;
        for (auto& c : collectors_) slowed = c->slowSampling(step.sampling_slowdown) || slowed;
        char text[128];
        std::snprintf(text, sizeof text, "system sampling every %d ms instead of %d ms",
                      config_.options.system_sample_rate_ms * step.sampling_slowdown,
                      config_.options.system_sample_rate_ms);
        what = slowed ? text : "no sampling to slow down";
        break;
      }
      default:
        what =
            "nothing left to give up: tracing stays on, and records the buffers cannot hold are "
            "dropped and counted";
        break;
    }
    addNote("step_down", "degraded", step.reason + ": " + what);
  } catch (...) {
    // A health record must never take the writer thread down.
  }
}

}  // namespace gpufl::runtime
