#include "runtime/system_collector.hpp"

#include <cstdio>
#include <utility>

#include "core/clock.hpp"
#include "core/flight_recorder.hpp"

namespace gpufl::runtime {

SystemCollector::SystemCollector(SystemCollectorConfig config)
    : config_(std::move(config)),
      host_(config_.proc_root),
      queue_(config_.queue_capacity),
      sampler_(config_.period, [this](int64_t now) { tick(now); }),
      sampling_(!config_.start_paused) {
  nvml::SamplerOptions nvml_options{.pcie_throughput = config_.nvml_pcie};
  nvml_ = config_.nvml_api
              ? std::make_unique<nvml::NvmlSampler>(*config_.nvml_api, nvml_options)
              : std::make_unique<nvml::NvmlSampler>(config_.nvml_library, nvml_options);
}

SystemCollector::~SystemCollector() {
  stop();
}

bool SystemCollector::start(core::SessionContext& ctx) {
  ctx_ = &ctx;
  // NVML opens here, on the init thread. Opening it on the sampler thread instead (so init would
  // not wait for nvmlInit) hung a PyTorch run under gpufl trace on the H200 (2026-11-29, 4th call):
  // there init runs inside the program's cuInit, and nvmlInit on another thread meanwhile never
  // returned.
  nvml::OpenStatus st = nvml_->open();
  if (st.ok) {
    std::string gpus = std::to_string(nvml_->gpus().size()) + " GPU(s):";
    for (const nvml::GpuIdentity& g : nvml_->gpus()) {
      gpus += " " + std::to_string(g.index) + "=" + (g.name.empty() ? "?" : g.name);
      if (!g.uuid.empty()) gpus += " (" + g.uuid + ")";
    }
    ctx.addNote("nvml", "on", gpus);
    watchXids(ctx);
  } else {
    ctx.addNote("nvml", "off", st.reason);
  }
  // The first tick (now) only primes the host CPU counters, so every host_sample written has a CPU
  // rate; GPU samples are written from the first tick on.
  return sampler_.start(/*tick_now=*/true);
}

// [sampler thread]
void SystemCollector::tick(int64_t now_ns) {
  const int64_t t0 = core::monotonicNs();
  if (!sampling_.load(std::memory_order_acquire)) {
    need_baseline_ = true;  // counters read after a pause would average over the pause
    return;
  }
  HostSample h = host_.sample(now_ns);
  if (need_baseline_) {
    need_baseline_ = false;
  } else {
    queue_.push(std::move(h));
  }
  for (host::HostIssue& issue : host_.takeNewIssues()) {
    ctx_->addNote("host_sampling", "degraded", issue.field + ": " + issue.reason);
  }
  if (nvml_->isOpen()) {
    for (GpuSample& s : nvml_->sample(now_ns)) queue_.push(std::move(s));
    for (const nvml::FieldIssue& issue : nvml_->takeNewIssues()) {
      ctx_->addNote("nvml", "degraded", issue.describe());
    }
  }
  tick_ns_.fetch_add(static_cast<uint64_t>(core::monotonicNs() - t0), std::memory_order_relaxed);
  thread_cpu_ns_.store(core::threadCpuNs(), std::memory_order_relaxed);
}

void SystemCollector::drain(EventVisitor& out) {
  const std::string& sid = ctx_ ? ctx_->sid() : std::string();
  queue_.drain([&](Item& item) {
    if (auto* g = std::get_if<GpuSample>(&item)) {
      g->sid = sid;
      out.onGpuSample(*g);
    } else if (auto* h = std::get_if<HostSample>(&item)) {
      h->sid = sid;
      out.onHostSample(*h);
    }
  });
}

// Each Xid the driver reports becomes an incident (flight_recorder.hpp), once per GPU and Xid.
void SystemCollector::watchXids(core::SessionContext& ctx) {
  core::FlightRecorder* flight = ctx.flight();
  if (flight == nullptr || nvml_->api() == nullptr) return;
  std::string why;
  auto on_xid = [flight, wake = [&ctx] { ctx.requestDrain(); }](uint32_t gpu,
                                                                unsigned long long xid) {
    core::IncidentTrigger t;
    t.kind = core::IncidentKind::Xid;
    t.ts_ns = core::monotonicNs();
    t.error_name = "Xid";
    t.error_code = static_cast<int64_t>(xid);
    t.has_error_code = true;
    t.gpu = gpu;
    const char* meaning = nvml::xidMeaning(xid);
    std::snprintf(t.reason, sizeof t.reason, "the NVIDIA driver reported Xid %llu on GPU %u%s%s",
                  xid, gpu, *meaning ? ": " : "", meaning);
    if (flight->trigger(t)) wake();
  };
  if (xid_.start(*nvml_->api(), nvml_->handles(), on_xid, &why))
    ctx.addNote("xid_events", "on", "the driver's Xid errors become incidents (NVML events)");
  else
    ctx.addNote("xid_events", "off", why);
}

void SystemCollector::stop() {
  xid_.stop();
  sampler_.stop();
  if (nvml_) nvml_->close();
}

void SystemCollector::finish(SessionEnd& end) {
  end.dropped["system"] += queue_.dropped();
  end.overhead_ns["system_sampler"] += tick_ns_.load(std::memory_order_relaxed);
  end.cpu_time_ns += thread_cpu_ns_.load(std::memory_order_relaxed);
}

void SystemCollector::setSampling(bool on) {
  sampling_.store(on, std::memory_order_release);
}

void SystemCollector::health(Health& h, std::vector<ThreadRole>&) {
  h.cpu_ns["sampler"] = thread_cpu_ns_.load(std::memory_order_relaxed);
  h.dropped["system"] += queue_.dropped();
}

bool SystemCollector::slowSampling(int factor) {
  sampler_.setSlowdown(factor);
  return true;
}

std::unique_ptr<core::Collector> makeSystemCollector(const InitOptions& options) {
  if (options.system_sample_rate_ms <= 0) return nullptr;
  SystemCollectorConfig config;
  config.period = std::chrono::milliseconds(options.system_sample_rate_ms);
  config.start_paused = !options.sampling_auto_start;
  return std::make_unique<SystemCollector>(std::move(config));
}

}  // namespace gpufl::runtime
