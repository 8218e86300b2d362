// Helpers shared by the reader's tests: temporary directories, plain and zstd files, a recording
// visitor.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/event_visitor.hpp"
#include "log/reader.hpp"

namespace gpufl::log::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpufl_reader_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void writeFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

inline std::string zstdCompress(const std::string& content, int level = 3) {
  std::string out(ZSTD_compressBound(content.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), content.data(), content.size(), level);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

// Every event, in delivery order where that matters.
struct RecordingVisitor : EventVisitor {
  std::vector<SessionStart> starts;
  std::vector<SessionEnd> ends;
  std::vector<Note> notes;
  std::vector<DeviceEvent> devices;
  std::vector<KernelDef> defs;
  std::vector<KernelEvent> kernels;
  std::vector<MemcpyEvent> copies;
  std::vector<SyncEvent> syncs;
  std::vector<MemoryEvent> memory;
  std::vector<StackDef> stacks;
  std::vector<ScopePath> paths;
  std::vector<ScopeBegin> begins;
  std::vector<ScopeEnd> scope_ends;
  std::vector<GpuSample> gpu_samples;
  std::vector<HostSample> host_samples;
  std::vector<SassMetric> sass;
  std::vector<PcSample> pcs;
  std::vector<RangeCounters> ranges;
  std::vector<BenchmarkResult> benchmarks;
  std::vector<Incident> incidents;
  std::vector<Health> health;

  void onSessionStart(const SessionStart& e) override { starts.push_back(e); }
  void onSessionEnd(const SessionEnd& e) override { ends.push_back(e); }
  void onNote(const Note& e) override { notes.push_back(e); }
  void onDevice(const DeviceEvent& e) override { devices.push_back(e); }
  void onKernelDef(const KernelDef& e) override { defs.push_back(e); }
  void onKernel(const KernelEvent& e) override { kernels.push_back(e); }
  void onMemcpy(const MemcpyEvent& e) override { copies.push_back(e); }
  void onSync(const SyncEvent& e) override { syncs.push_back(e); }
  void onMemory(const MemoryEvent& e) override { memory.push_back(e); }
  void onStack(const StackDef& e) override { stacks.push_back(e); }
  void onScopePath(const ScopePath& e) override { paths.push_back(e); }
  void onScopeBegin(const ScopeBegin& e) override { begins.push_back(e); }
  void onScopeEnd(const ScopeEnd& e) override { scope_ends.push_back(e); }
  void onGpuSample(const GpuSample& e) override { gpu_samples.push_back(e); }
  void onHostSample(const HostSample& e) override { host_samples.push_back(e); }
  void onSassMetric(const SassMetric& e) override { sass.push_back(e); }
  void onPcSample(const PcSample& e) override { pcs.push_back(e); }
  void onRangeCounters(const RangeCounters& e) override { ranges.push_back(e); }
  void onBenchmark(const BenchmarkResult& e) override { benchmarks.push_back(e); }
  void onIncident(const Incident& e) override { incidents.push_back(e); }
  void onHealth(const Health& e) override { health.push_back(e); }
};

inline std::string sessionStartLine(const std::string& session_id, int64_t start_unix_ns,
                                    const std::string& app = "app") {
  return R"({"type":"session_start","sid":")" + session_id.substr(0, 8) +
         R"(","schema":1,"session_id":")" + session_id + R"(","app":")" + app +
         R"(","pid":1,"host":"h","version":"0.1.0","engine":"None","start_ns":1000,"start_unix_ns":)" +
         std::to_string(start_unix_ns) + "}\n";
}

// All warnings as "file:line: message" lines, for readable failure output.
inline std::string allWarnings(const std::vector<ReadWarning>& warnings) {
  std::string text;
  for (const auto& w : warnings) text += formatWarning(w) + "\n";
  return text;
}

// True when some warning has this file and line and contains `needle`.
inline bool hasWarning(const std::vector<ReadWarning>& warnings, const std::string& file,
                       uint64_t line, const std::string& needle) {
  for (const auto& w : warnings)
    if (w.file == file && w.line == line && w.message.find(needle) != std::string::npos)
      return true;
  return false;
}

}  // namespace gpufl::log::testing
