#include "monitor/monitor.hpp"

#include <unistd.h>

#include <fstream>
#include <utility>

#include "core/clock.hpp"
#include "core/uuid.hpp"
#include "gpufl/version.hpp"
#include "monitor/scripted_source.hpp"

namespace gpufl::monitor {
namespace {

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace

Monitor::Monitor(MonitorOptions options, Say say)
    : options_(std::move(options)), say_(std::move(say)), host_(options_.proc_root) {}

Monitor::~Monitor() {
  stop();
}

std::unique_ptr<Monitor> Monitor::start(MonitorOptions options, Say say, std::string* error) {
  if (options.interval.count() <= 0) {
    *error = "--interval must be a positive number of milliseconds";
    return nullptr;
  }
  std::unique_ptr<Monitor> m(new Monitor(std::move(options), std::move(say)));
  if (!m->open(error)) return nullptr;
  return m;
}

bool Monitor::open(std::string* error) {
  std::optional<ListenAddress> address = parseListenAddress(options_.listen, error);
  if (!address) {
    *error = "--listen " + *error;
    return false;
  }
  if (std::string why = checkListenPolicy(*address, options_.token); !why.empty()) {
    *error = why;
    return false;
  }

  // PCIe about once a second whatever the interval: each read blocks NVML for ~20 ms per counter.
  pcie_every_ = static_cast<int>(
      std::max<int64_t>(1, (999 + options_.interval.count()) / options_.interval.count()));
  if (!options_.nvml_script.empty()) {
    gpu_ = loadScriptedSource(options_.nvml_script, error);
    if (!gpu_) return false;
  } else {
    gpu_ = makeNvmlSource(options_.nvml_library,
                          {.pcie_throughput = options_.pcie, .pcie_every_n_samples = pcie_every_});
  }

  if (!options_.prefix.empty()) {
    log::LogWriterOptions lo;
    lo.prefix = options_.prefix;
    lo.rotate_bytes = options_.rotate_bytes;
    lo.one_file = Channel::System;  // samples and notes: the documented PREFIX.system.log alone
    log_ = log::LogWriter::open(lo, error);
    if (!log_) return false;
    SessionStart start;
    start.session_id = core::uuidV4();
    start.sid = sid_ = core::sidOf(start.session_id);
    start.app = "gpufl-monitor";
    start.pid = getpid();
    start.host = hostName();
    start.version = kVersion;
    start.start_ns = core::monotonicNs();
    start.start_unix_ns = core::unixNs();
    start.options["interval_ms"] = std::to_string(options_.interval.count());
    start.options["listen"] = jsonString(options_.listen);
    if (!options_.nvml_script.empty())
      start.options["nvml_script"] = jsonString(options_.nvml_script);
    log_->onSessionStart(start);
  }

  nvml::OpenStatus st = gpu_->open();
  snapshot_.nvml_up = st.ok;
  snapshot_.nvml_reason = st.reason;
  snapshot_.gpus = gpu_->gpus();
  snapshot_.logging = log_ != nullptr;
  if (st.ok) {
    std::string list = std::to_string(gpu_->gpus().size()) + " GPU(s):";
    for (const nvml::GpuIdentity& g : gpu_->gpus())
      list += " " + std::to_string(g.index) + "=" + g.name + " (" + g.uuid + ")";
    note("nvml", "on", list);
  } else {
    note("nvml", "off", st.reason + "; serving host metrics only");
  }

  if (!options_.apps_dirs.empty()) {
    apps_ = std::make_unique<AppActivity>(options_.apps_dirs);
    snapshot_.apps_watched = true;
  }

  server_ = HttpServer::start(
      *address, options_.token, [this] { return metricsText(); }, error);
  if (!server_) {
    gpu_->close();
    if (log_) {
      SessionEnd end;
      end.sid = sid_;
      end.end_ns = core::monotonicNs();
      log_->onSessionEnd(end);
      log_->close();
    }
    return false;
  }
  say_("listening on http://" +
       (address->host.find(':') != std::string::npos ? "[" + address->host + "]" : address->host) +
       ":" + std::to_string(server_->port()) + "/metrics" +
       (options_.token.empty() ? "" : " (bearer token required)") + ", sampling every " +
       std::to_string(options_.interval.count()) + " ms" +
       (log_ ? ", logging to " + options_.prefix + ".system.log" : ""));
  sampler_ = std::make_unique<host::PeriodicSampler>(options_.interval,
                                                     [this](int64_t now) { tick(now); });
  sampler_->start(/*tick_now=*/true);
  return true;
}

void Monitor::note(const std::string& feature, const std::string& status,
                   const std::string& reason) {
  say_(feature + " " + status + ": " + reason);
  if (!log_) return;
  Note n;
  n.sid = sid_;
  n.ts_ns = core::monotonicNs();
  n.feature = feature;
  n.status = status;
  n.reason = reason;
  log_->onNote(n);
}

std::string Monitor::commandOf(uint32_t pid) const {
  std::string path = options_.proc_root;
  if (path.empty() || path.back() != '/') path += '/';
  std::ifstream in(path + "proc/" + std::to_string(pid) + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

// [sampler thread]
void Monitor::tick(int64_t now_ns) {
  const int64_t t0 = core::monotonicNs();
  Snapshot& s = snapshot_;
  s.last_sample_unix_s = static_cast<double>(core::unixNs()) * 1e-9;
  uint64_t cpu = core::threadCpuNs();
  auto counted = [&](TickPart part) {  // the thread's CPU since the previous part goes to `part`
    const uint64_t now = core::threadCpuNs();
    s.tick_cpu_ns[part] += now - cpu;
    cpu = now;
  };

  HostSample h = host_.sample(now_ns);
  h.sid = sid_;
  for (const host::HostIssue& issue : host_.takeNewIssues())
    note("host_sampling", "degraded", issue.field + ": " + issue.reason);
  counted(kHost);
  if (log_) log_->onHostSample(h);
  s.host = std::move(h);

  if (s.nvml_up) {
    const bool pcie_read = s.samples_total % static_cast<uint64_t>(pcie_every_) == 0;
    std::vector<GpuSample> samples = gpu_->sample(now_ns);
    counted(kGpuSample);
    for (GpuSample& g : samples) {
      g.sid = sid_;
      if (log_) log_->onGpuSample(g);
      // Between PCIe reads the previous throughput stands (the log keeps only what was measured).
      if (!pcie_read) {
        for (const GpuSample& old : s.gpu_samples) {
          if (old.gpu != g.gpu) continue;
          if (!g.pcie_rx_kbps) g.pcie_rx_kbps = old.pcie_rx_kbps;
          if (!g.pcie_tx_kbps) g.pcie_tx_kbps = old.pcie_tx_kbps;
        }
      }
    }
    s.gpu_samples = std::move(samples);
    counted(kLog);
    s.processes.clear();
    for (const nvml::ProcessMemory& p : gpu_->processes())
      s.processes.push_back({p, commandOf(p.pid)});
    counted(kGpuProcesses);
    for (const nvml::FieldIssue& issue : gpu_->takeNewIssues())
      note("nvml", "degraded", issue.describe());
  }
  counted(kLog);  // the NVML notes
  if (apps_) {
    apps_->poll(now_ns);
    s.apps = apps_->series();
    s.app_health = apps_->health();
    for (const std::string& issue : apps_->takeIssues()) note("apps", "degraded", issue);
  }
  counted(kApps);
  if (log_) {
    log_->flush();
    log::LogWriterStats st = log_->stats();
    s.log_records_total = st.records;
    s.log_write_errors_total = st.write_errors;
  }
  ++s.samples_total;
  s.last_sample_duration_s = static_cast<double>(core::monotonicNs() - t0) * 1e-9;
  counted(kLog);
  std::string text = renderMetrics(s);
  counted(kRender);
  std::lock_guard<std::mutex> lock(text_mutex_);
  text_ = std::move(text);
  ticks_ = s.samples_total;
}

std::string Monitor::metricsText() const {
  std::lock_guard<std::mutex> lock(text_mutex_);
  return text_;
}

uint64_t Monitor::ticks() const {
  std::lock_guard<std::mutex> lock(text_mutex_);
  return ticks_;
}

void Monitor::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (server_) server_->stop();
  if (sampler_) sampler_->stop();
  if (gpu_) gpu_->close();
  if (log_) {
    SessionEnd end;
    end.sid = sid_;
    end.end_ns = core::monotonicNs();
    log_->onSessionEnd(end);
    log_->close();
    say_("stopped after " + std::to_string(snapshot_.samples_total) + " samples; log closed");
  } else {
    say_("stopped after " + std::to_string(snapshot_.samples_total) + " samples");
  }
}

}  // namespace gpufl::monitor
