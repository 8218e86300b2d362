#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "monitor/snapshot.hpp"

namespace gpufl::monitor {
namespace {

// "name{labels}" -> value, from exposition text; HELP/TYPE lines are checked to precede each
// family.
std::map<std::string, double> parse(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line, typed;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) typed = line.substr(7, line.find(' ', 7) - 7);
    if (line.empty() || line[0] == '#') continue;
    const std::string series = line.substr(0, line.rfind(' '));
    EXPECT_EQ(series.substr(0, series.find('{')), typed) << "sample without its TYPE: " << line;
    EXPECT_EQ(out.count(series), 0u) << "duplicate series " << series;
    out[series] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  return out;
}

Snapshot fullSnapshot() {
  Snapshot s;
  s.nvml_up = true;
  s.gpus = {{0, "NVIDIA H200", "GPU-aaaa"}, {1, "NVIDIA H200", "GPU-bbbb"}};
  GpuSample g;
  g.gpu = 1;
  g.util_gpu = 87;
  g.util_mem = 40;
  g.mem_used_bytes = 50'000'000'000ull;
  g.mem_total_bytes = 150'000'000'000ull;
  g.temp_c = 61;
  g.power_mw = 456'789;
  g.power_limit_mw = 700'000;
  g.energy_mj = 9'876'543'210ull;
  g.clk_sm = 1980;
  g.clk_mem = 2619;
  g.clk_gfx = 1975;
  g.pcie_rx_kbps = 1000;
  g.pcie_tx_kbps = 2000;
  g.throttle = 0x5 | (uint64_t{1} << 40);
  s.gpu_samples = {g};
  s.processes = {{{1, 4242, 3ull << 30}, "python3"}, {{1, 4243, std::nullopt}, "hidden"}};
  HostSample h;
  h.cpu_pct = 25.0;
  h.ram_used_bytes = 8'000'000'000ull;
  h.ram_total_bytes = 64'000'000'000ull;
  h.proc_cpu_pct = 0.2;
  h.proc_rss_bytes = 12'000'000;
  s.host = h;
  s.samples_total = 7;
  s.last_sample_duration_s = 0.002;
  s.tick_cpu_ns[kGpuSample] = 250'000'000;
  s.last_sample_unix_s = 1764650000.5;
  s.logging = true;
  s.log_records_total = 30;
  return s;
}

TEST(Metrics, EveryGpuFieldInBaseUnits) {
  auto m = parse(renderMetrics(fullSnapshot()));
  const std::string gpu1 = "{gpu=\"1\",uuid=\"GPU-bbbb\",name=\"NVIDIA H200\"}";
  EXPECT_EQ(m.at("gpufl_nvml_up{reason=\"\"}"), 1);
  EXPECT_EQ(m.at("gpufl_gpu_info{gpu=\"0\",uuid=\"GPU-aaaa\",name=\"NVIDIA H200\"}"), 1);
  EXPECT_EQ(m.at("gpufl_gpu_info" + gpu1), 1);
  EXPECT_DOUBLE_EQ(m.at("gpufl_gpu_utilization_ratio" + gpu1), 0.87);
  EXPECT_DOUBLE_EQ(m.at("gpufl_gpu_memory_utilization_ratio" + gpu1), 0.40);
  EXPECT_EQ(m.at("gpufl_gpu_memory_used_bytes" + gpu1), 50e9);
  EXPECT_EQ(m.at("gpufl_gpu_memory_total_bytes" + gpu1), 150e9);
  EXPECT_EQ(m.at("gpufl_gpu_temperature_celsius" + gpu1), 61);
  EXPECT_DOUBLE_EQ(m.at("gpufl_gpu_power_watts" + gpu1), 456.789);
  EXPECT_DOUBLE_EQ(m.at("gpufl_gpu_power_limit_watts" + gpu1), 700);
  EXPECT_DOUBLE_EQ(m.at("gpufl_gpu_energy_joules_total" + gpu1), 9876543.21);
  EXPECT_EQ(m.at("gpufl_gpu_sm_clock_hertz" + gpu1), 1980e6);
  EXPECT_EQ(m.at("gpufl_gpu_memory_clock_hertz" + gpu1), 2619e6);
  EXPECT_EQ(m.at("gpufl_gpu_graphics_clock_hertz" + gpu1), 1975e6);
  EXPECT_EQ(m.at("gpufl_gpu_pcie_receive_bytes_per_second" + gpu1), 1000 * 1024);
  EXPECT_EQ(m.at("gpufl_gpu_pcie_transmit_bytes_per_second" + gpu1), 2000 * 1024);
  // GPU 0 has no sample: only its info line.
  EXPECT_EQ(
      m.count("gpufl_gpu_temperature_celsius{gpu=\"0\",uuid=\"GPU-aaaa\",name=\"NVIDIA H200\"}"),
      0u);
}

TEST(Metrics, ThrottleReasonsAreZeroOrOneForEveryKnownReason) {
  auto m = parse(renderMetrics(fullSnapshot()));
  auto reason = [&](const std::string& r) {
    return m.at(
        "gpufl_gpu_throttle_reason{gpu=\"1\",uuid=\"GPU-bbbb\",name=\"NVIDIA H200\",reason=\"" + r +
        "\"}");
  };
  EXPECT_EQ(reason("gpu_idle"), 1);
  EXPECT_EQ(reason("applications_clocks_setting"), 0);
  EXPECT_EQ(reason("sw_power_cap"), 1);
  EXPECT_EQ(reason("hw_thermal_slowdown"), 0);
  EXPECT_EQ(reason("reliability"), 0);
  EXPECT_EQ(reason("unknown_0x10000000000"), 1);  // an unknown bit shows only while set
  int lines = 0;
  for (const auto& [k, v] : m) lines += k.rfind("gpufl_gpu_throttle_reason{", 0) == 0;
  EXPECT_EQ(lines, 12);  // 11 known reasons + the unknown bit
}

TEST(Metrics, ProcessMemoryWithPidAndCommand) {
  auto m = parse(renderMetrics(fullSnapshot()));
  EXPECT_EQ(m.at("gpufl_gpu_process_memory_used_bytes{gpu=\"1\",uuid=\"GPU-bbbb\",name=\"NVIDIA "
                 "H200\",pid=\"4242\",command=\"python3\"}"),
            3.0 * (1 << 30));
  for (const auto& [k, v] : m) EXPECT_EQ(k.find("4243"), std::string::npos) << k;  // memory unknown
}

TEST(Metrics, HostAndMonitorSelf) {
  auto m = parse(renderMetrics(fullSnapshot()));
  EXPECT_DOUBLE_EQ(m.at("gpufl_host_cpu_utilization_ratio"), 0.25);
  EXPECT_EQ(m.at("gpufl_host_memory_used_bytes"), 8e9);
  EXPECT_EQ(m.at("gpufl_host_memory_total_bytes"), 64e9);
  EXPECT_DOUBLE_EQ(m.at("gpufl_monitor_cpu_ratio"), 0.002);
  EXPECT_EQ(m.at("gpufl_monitor_resident_memory_bytes"), 12e6);
  EXPECT_EQ(m.at("gpufl_monitor_samples_total"), 7);
  EXPECT_DOUBLE_EQ(m.at("gpufl_monitor_sample_duration_seconds"), 0.002);
  EXPECT_DOUBLE_EQ(m.at("gpufl_monitor_last_sample_timestamp_seconds"), 1764650000.5);
  EXPECT_EQ(m.at("gpufl_monitor_log_records_total"), 30);
  EXPECT_EQ(m.at("gpufl_monitor_log_write_errors_total"), 0);
  EXPECT_DOUBLE_EQ(m.at("gpufl_monitor_tick_cpu_seconds_total{part=\"gpu_sample\"}"), 0.25);
  EXPECT_DOUBLE_EQ(m.at("gpufl_monitor_tick_cpu_seconds_total{part=\"render\"}"), 0);
}

TEST(Metrics, WithoutNvmlTheReasonIsALabelAndHostMetricsRemain) {
  Snapshot s = fullSnapshot();
  s.nvml_up = false;
  s.nvml_reason = "NVML not available (libnvidia-ml.so.1 not found: no NVIDIA driver installed?)";
  s.gpus.clear();
  s.gpu_samples.clear();
  s.processes.clear();
  s.logging = false;
  auto m = parse(renderMetrics(s));
  EXPECT_EQ(m.at("gpufl_nvml_up{reason=\"" + s.nvml_reason + "\"}"), 0);
  for (const auto& [k, v] : m) EXPECT_NE(k.rfind("gpufl_gpu_", 0), 0u) << k;
  EXPECT_EQ(m.count("gpufl_monitor_log_records_total"), 0u);
  EXPECT_DOUBLE_EQ(m.at("gpufl_host_cpu_utilization_ratio"), 0.25);
}

TEST(Metrics, GpuflsOwnHealthInEachProgramCountersInBaseUnits) {
  Snapshot s = fullSnapshot();
  s.apps_watched = true;
  AppHealth h;
  h.app = "train";
  h.pid = 77;
  h.sid = "abcd1234";
  h.cpu_ns = {{"writer", 2'500'000'000}, {"cupti", 500'000'000}};
  h.dropped = {{"activity", 12}};
  h.violations = {{"zero_time", 18}};
  h.records = 1'000'000;
  h.checked = 999'000;
  h.rss_bytes = 376'000'000;
  h.buffer_bytes = 16 << 20;
  h.has_clock = true;
  h.clock_drift_ns = -1'500'000;
  h.step_downs = 1;
  s.app_health = {h};
  auto m = parse(renderMetrics(s));
  const std::string l = "app=\"train\",pid=\"77\",session=\"abcd1234\"";
  EXPECT_DOUBLE_EQ(m.at("gpufl_app_self_cpu_seconds_total{" + l + ",thread=\"writer\"}"), 2.5);
  EXPECT_DOUBLE_EQ(m.at("gpufl_app_self_cpu_seconds_total{" + l + ",thread=\"cupti\"}"), 0.5);
  EXPECT_EQ(m.at("gpufl_app_records_dropped_total{" + l + ",source=\"activity\"}"), 12);
  EXPECT_EQ(m.at("gpufl_app_trace_violations_total{" + l + ",check=\"zero_time\"}"), 18);
  EXPECT_EQ(m.at("gpufl_app_records_written_total{" + l + "}"), 1e6);
  EXPECT_EQ(m.at("gpufl_app_records_checked_total{" + l + "}"), 999e3);
  EXPECT_EQ(m.at("gpufl_app_resident_memory_bytes{" + l + "}"), 376e6);
  EXPECT_EQ(m.at("gpufl_app_self_buffer_bytes{" + l + "}"), 16 << 20);
  EXPECT_DOUBLE_EQ(m.at("gpufl_app_clock_drift_seconds{" + l + "}"), -0.0015);
  EXPECT_EQ(m.at("gpufl_app_step_downs{" + l + "}"), 1);
  const std::string text = renderMetrics(s);
  EXPECT_NE(text.find("# TYPE gpufl_app_trace_violations_total counter"), std::string::npos);
  EXPECT_NE(text.find("# TYPE gpufl_app_resident_memory_bytes gauge"), std::string::npos);
}

}  // namespace
}  // namespace gpufl::monitor
