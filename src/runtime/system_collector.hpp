// The session's system sampler: one thread that, every system_sample_rate_ms, reads NVML (one
// GpuSample per GPU) and /proc (one HostSample) into a bounded queue that the writer thread drains
// into the system channel.
//
// Notes it writes: "nvml" on/off (GPU list, or why NVML is unavailable) and "degraded" once per
// field NVML cannot read; "host_sampling" degraded once per /proc field it cannot read. Drops
// (queue full) go to session_end.dropped["system"]; the sampler thread's time to
// session_end.overhead_ns["system_sampler"] and cpu_time_ns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "core/collector.hpp"
#include "core/event_queue.hpp"
#include "host/host_sampler.hpp"
#include "host/periodic_sampler.hpp"
#include "nvml/nvml_sampler.hpp"
#include "nvml/xid_watcher.hpp"

namespace gpufl::runtime {

struct SystemCollectorConfig {
  std::chrono::milliseconds period{100};
  bool start_paused = false;                      // !InitOptions::sampling_auto_start
  std::string proc_root = "/";                    // tests: a fixture tree
  std::string nvml_library = nvml::kLibraryName;  // tests: a missing library
  const nvml::Api* nvml_api = nullptr;            // tests: a fake NVML (overrides nvml_library)
  bool nvml_pcie = true;                          // see nvml::SamplerOptions
  size_t queue_capacity = 4096;
};

class SystemCollector final : public core::Collector {
 public:
  explicit SystemCollector(SystemCollectorConfig config);
  ~SystemCollector() override;

  std::string_view name() const override { return "system"; }
  bool start(core::SessionContext& ctx) override;
  void drain(EventVisitor& out) override;  // [writer thread]
  void stop() override;
  void finish(SessionEnd& end) override;
  void setSampling(bool on) override;
  bool samples() const override { return true; }
  // Its thread's CPU time (the "sampler" role), measured by the thread itself at each tick.
  void health(Health& h, std::vector<ThreadRole>& threads) override;
  // [writer thread] The sampler ticks `factor` times less often (the user's cost limits).
  bool slowSampling(int factor) override;

 private:
  using Item = std::variant<GpuSample, HostSample>;
  void tick(int64_t now_ns);  // [sampler thread]
  void watchXids(core::SessionContext& ctx);

  SystemCollectorConfig config_;
  core::SessionContext* ctx_ = nullptr;
  host::HostSampler host_;
  std::unique_ptr<nvml::NvmlSampler> nvml_;
  nvml::XidWatcher xid_;  // the driver's Xid errors, as flight recorder incidents
  core::EventQueue<Item> queue_;
  host::PeriodicSampler sampler_;
  std::atomic<bool> sampling_;
  bool need_baseline_ = true;  // sampler thread: the next host sample only primes the CPU counters
  std::atomic<uint64_t> tick_ns_{0};
  std::atomic<uint64_t> thread_cpu_ns_{0};
};

// Factory for the session (builtin_collectors.cpp): nullptr when system_sample_rate_ms <= 0.
std::unique_ptr<core::Collector> makeSystemCollector(const InitOptions& options);

}  // namespace gpufl::runtime
