// libFuzzer target of the log reader: the input is the content of one log file (zstd when it starts
// with the zstd magic number), read through the same session selection and decoding as readPrefix.
// Built with -fsanitize=fuzzer,address,undefined by tests/fuzz/CMakeLists.txt; corpus_replay.cpp
// runs it without libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/event_visitor.hpp"
#include "log/line_source.hpp"
#include "log/record_parser.hpp"
#include "log/session_reader.hpp"

namespace {

// Reads every field of every event, so a bad value (uninitialised, dangling) is touched and
// reported.
class TouchingVisitor : public gpufl::EventVisitor {
 public:
  uint64_t sum = 0;
  void onSessionStart(const gpufl::SessionStart& e) override {
    sum += e.session_id.size() + e.devices.size() + e.options.size() +
           static_cast<uint64_t>(e.start_ns);
    for (const auto& d : e.devices) sum += d.name.size() + static_cast<uint64_t>(d.sm_count);
  }
  void onSessionEnd(const gpufl::SessionEnd& e) override { sum += e.dropped.size() + e.kernels; }
  void onNote(const gpufl::Note& e) override { sum += e.reason.size(); }
  void onDevice(const gpufl::DeviceEvent& e) override { sum += e.device.name.size() + e.device.id; }
  void onKernelDef(const gpufl::KernelDef& e) override { sum += e.name.size() + e.grid.count(); }
  void onKernel(const gpufl::KernelEvent& e) override {
    sum += static_cast<uint64_t>(e.end_ns) - static_cast<uint64_t>(e.start_ns) + e.correlation_id;
  }
  void onMemcpy(const gpufl::MemcpyEvent& e) override { sum += e.bytes + e.src_kind.size(); }
  void onStack(const gpufl::StackDef& e) override { sum += e.frames.size(); }
  void onScopePath(const gpufl::ScopePath& e) override { sum += e.name.size(); }
  void onScopeBegin(const gpufl::ScopeBegin& e) override { sum += e.tag.size() + e.id; }
  void onScopeEnd(const gpufl::ScopeEnd& e) override { sum += e.id; }
  void onGpuSample(const gpufl::GpuSample& e) override { sum += e.throttle_reasons.size(); }
  void onHostSample(const gpufl::HostSample& e) override { sum += e.ram_used_bytes.value_or(0); }
  void onSassMetric(const gpufl::SassMetric& e) override { sum += e.sass.size(); }
  void onPcSample(const gpufl::PcSample& e) override { sum += e.stall.size(); }
  void onRangeCounters(const gpufl::RangeCounters& e) override { sum += e.metrics.size(); }
  void onBenchmark(const gpufl::BenchmarkResult& e) override { sum += e.name.size(); }
};

void readOnce(std::string_view bytes, gpufl::log::LineSource::Format format, const char* session,
              size_t max_line) {
  using namespace gpufl::log;
  ReadOptions options;
  options.session = session;
  options.max_line_bytes = max_line;
  const SourceOpener open = [&](const std::string&, std::string*) {
    return LineSource::fromMemory(bytes, format, max_line);
  };
  WarningList warnings(options.max_warnings);
  ReadResult result;
  TouchingVisitor visitor;
  // Two files with the same content: the second checks that per-file state is reset.
  readInputs({"fuzz.device.log", "fuzz.scope.log"}, open, options, visitor, warnings, result);
  for (const auto& w : warnings.kept()) visitor.sum += formatWarning(w).size();
}

// Kernel events and warnings of one decoder over every line of `bytes`, as text.
std::string decodeAll(std::string_view bytes, gpufl::log::LineSource::Format format,
                      const std::string& sid, bool writer_fast_path) {
  using namespace gpufl::log;
  struct Kernels : gpufl::EventVisitor {
    std::string text;
    void onKernel(const gpufl::KernelEvent& e) override {
      text += e.sid + ' ' + std::to_string(e.def_id) + ' ' + std::to_string(e.stream) + ' ' +
              std::to_string(e.scope_path) + ' ' + std::to_string(e.correlation_id) + ' ' +
              std::to_string(e.start_ns) + ' ' + std::to_string(e.end_ns) + ' ' +
              std::to_string(e.stack_id) + ' ' + std::to_string(e.graph_id) + ' ' +
              std::to_string(e.instrumented) + '\n';
    }
  } kernels;
  WarningList warnings(1000);
  RecordDecoder decoder(sid, kernels, warnings);
  decoder.useWriterFastPath(writer_fast_path);
  auto source = LineSource::fromMemory(bytes, format, 4096);
  decoder.beginFile("fuzz.device.log");
  Line line;
  while (source->next(line))
    if (line.status == Line::Status::Ok)
      decoder.decodeLine(line.text, line.number, line.terminated);
  decoder.endFile();
  for (const auto& w : warnings.kept()) kernels.text += formatWarning(w) + '\n';
  return kernels.text + std::to_string(warnings.count());
}

// The kernel_event scanner for the writer's layout (log/kernel_line.hpp) must decide nothing the
// full parser would decide otherwise: the same events and warnings with it and without it.
void compareWriterFastPath(std::string_view bytes, gpufl::log::LineSource::Format format) {
  for (const std::string sid : {"", "abcd1234"}) {
    const std::string fast = decodeAll(bytes, format, sid, true),
                      full = decodeAll(bytes, format, sid, false);
    if (fast == full) continue;
    std::fprintf(stderr,
                 "sid '%s': the writer-layout scanner and the full parser disagree:\n%s\n---\n%s\n",
                 sid.c_str(), fast.c_str(), full.c_str());
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const bool zstd = size >= 4 && std::memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0;
  const auto format =
      zstd ? gpufl::log::LineSource::Format::Zstd : gpufl::log::LineSource::Format::Plain;
  // The default selection with a roomy line limit, then a session prefix with a tiny limit so that
  // buffer growth and the too-long path are reached by small inputs.
  readOnce(bytes, format, "", 4096);
  readOnce(bytes, format, "a", 48);
  compareWriterFastPath(bytes, format);
  return 0;
}
