// `gpufl monitor`: a daemon that samples NVML and the host every interval, writes the samples to a
// system log under a prefix (rotated and compressed by log::LogWriter) and serves the latest ones
// as Prometheus metrics over HTTP.
//
// Threads: the sampler thread ([sampler thread]) reads the sources, writes the log and renders the
// exposition text once per tick; the HTTP threads only copy that text out. A scrape therefore costs
// a string copy, and the log is written by one thread as LogWriter requires.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "host/host_sampler.hpp"
#include "host/periodic_sampler.hpp"
#include "log/log_writer.hpp"
#include "monitor/app_activity.hpp"
#include "monitor/gpu_source.hpp"
#include "monitor/http_server.hpp"
#include "monitor/snapshot.hpp"

namespace gpufl::monitor {

struct MonitorOptions {
  std::chrono::milliseconds interval{1000};
  std::string listen = "127.0.0.1:9464";
  std::string token;   // required by /metrics when set; required to listen beyond loopback
  std::string prefix;  // system log prefix; empty: no log
  uint64_t rotate_bytes = 64ull << 20;
  std::string nvml_library = nvml::kLibraryName;
  std::string nvml_script;  // a scripted source instead of NVML (tests; scripted_source.hpp)
  bool pcie = true;         // PCIe throughput costs ~40 ms of NVML time per GPU per read
  std::string proc_root = "/";
  std::vector<std::string>
      apps_dirs;  // where profiled programs write their logs (app_activity.hpp)
};

class Monitor {
 public:
  // What the monitor tells its operator (stderr in `gpufl monitor`); called from any thread.
  using Say = std::function<void(const std::string&)>;

  // Opens the sources, the log and the listening socket, then starts sampling (the first tick
  // runs at once). nullptr and *error set on a bad option, a script error, a log that cannot be
  // opened or an address that cannot be bound. NVML being unavailable is not an error: the monitor
  // serves host metrics and gpufl_nvml_up 0 with the reason.
  static std::unique_ptr<Monitor> start(MonitorOptions options, Say say, std::string* error);
  ~Monitor();  // stop()
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  int port() const { return server_ ? server_->port() : 0; }
  std::string metricsText() const;  // what GET /metrics answers
  uint64_t ticks() const;

  // Stops serving and sampling, writes session_end and closes the log. Idempotent.
  void stop();

 private:
  explicit Monitor(MonitorOptions options, Say say);
  bool open(std::string* error);
  void tick(int64_t now_ns);  // [sampler thread]
  void note(const std::string& feature, const std::string& status, const std::string& reason);
  std::string commandOf(uint32_t pid) const;

  MonitorOptions options_;
  Say say_;
  std::unique_ptr<GpuSource> gpu_;
  host::HostSampler host_;
  std::unique_ptr<log::LogWriter> log_;
  std::string sid_;
  int pcie_every_ = 1;  // ticks between PCIe reads (the sampler's pcie_every_n_samples)
  Snapshot snapshot_;   // sampler thread only
  std::unique_ptr<AppActivity> apps_;
  std::unique_ptr<host::PeriodicSampler> sampler_;
  std::unique_ptr<HttpServer> server_;
  mutable std::mutex text_mutex_;
  std::string text_;    // guarded by text_mutex_
  uint64_t ticks_ = 0;  // guarded by text_mutex_
  bool stopped_ = false;
};

}  // namespace gpufl::monitor
