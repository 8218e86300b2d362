#include "agent/agent_metrics.hpp"

#include <cstdio>

namespace gpufl::agent {

void AgentMetrics::error(const std::string& kind, uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  errors_[kind] += n;
}

uint64_t AgentMetrics::errors(const std::string& kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = errors_.find(kind);
  return it == errors_.end() ? 0 : it->second;
}

namespace {

void metric(std::string& out, const char* name, const char* type, const char* help, double value) {
  char num[64];
  std::snprintf(num, sizeof num, "%.17g", value);
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" +
         name + " " + num + "\n";
}

}  // namespace

std::string AgentMetrics::render(uint64_t spool_bytes, uint64_t spool_batches,
                                 double lag_seconds) const {
  std::string out;
  auto c = [&](const char* name, const char* help, const std::atomic<uint64_t>& v) {
    metric(out, name, "counter", help, static_cast<double>(v.load()));
  };
  c("gpufl_agent_lines_read_total", "Complete lines read from log files.", lines_read);
  c("gpufl_agent_bytes_read_total",
    "Bytes read from log files (compressed bytes for .zst segments).", bytes_read);
  c("gpufl_agent_records_spooled_total", "Records put into the on-disk spool.", records_spooled);
  c("gpufl_agent_batches_sent_total", "Batches the receiver accepted.", batches_sent);
  c("gpufl_agent_records_sent_total", "Records in batches the receiver accepted.", records_sent);
  c("gpufl_agent_sent_bytes_total", "Compressed batch bytes the receiver accepted.", bytes_sent);
  c("gpufl_agent_retries_total", "Send attempts that failed and will be repeated.", retries);
  c("gpufl_agent_sessions_shipped_total",
    "Sessions whose session_end went through in every channel.", sessions_shipped);
  c("gpufl_agent_otlp_spans_total", "OTLP spans (scopes, kernels) exported.", otlp_spans);
  c("gpufl_agent_otlp_points_total", "OTLP metric data points (GPU and host samples) exported.",
    otlp_points);
  metric(out, "gpufl_agent_spool_bytes", "gauge", "Bytes of batches waiting in the spool.",
         static_cast<double>(spool_bytes));
  metric(out, "gpufl_agent_spool_batches", "gauge", "Batches waiting in the spool.",
         static_cast<double>(spool_batches));
  metric(out, "gpufl_agent_unread_bytes", "gauge", "Bytes of live files not read yet (last scan).",
         static_cast<double>(unread_bytes.load()));
  metric(out, "gpufl_agent_lag_seconds", "gauge",
         "Age of the oldest batch not yet accepted by the receiver (0 when all went through).",
         lag_seconds);
  metric(out, "gpufl_agent_streams", "gauge",
         "Channel streams (prefix and channel) being followed.",
         static_cast<double>(streams.load()));
  out +=
      "# HELP gpufl_agent_errors_total Errors and skipped input, by kind.\n"
      "# TYPE gpufl_agent_errors_total counter\n";
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [kind, n] : errors_)
    out += "gpufl_agent_errors_total{kind=\"" + kind + "\"} " + std::to_string(n) + "\n";
  return out;
}

}  // namespace gpufl::agent
