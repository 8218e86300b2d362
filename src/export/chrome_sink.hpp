// The Chrome trace-event JSON format (chrome://tracing, Catapult, older tools; Perfetto's UI opens
// it too), streamed to a file: {"displayTimeUnit":"ns","traceEvents":[...]}. Timestamps are
// microseconds with three decimals, so no nanosecond is lost. Tracks become (pid, tid) pairs: host
// threads keep their tid, GPU stream tracks get tids from kGpuTidBase up, named by thread_name
// metadata. Counters are "C" events named after their track. A flow becomes one "s" (at the
// launching scope's begin) and one "f" (bound to the kernel) per kernel. Memory: the (pid, tid) of
// each track and the place of each scope that starts a flow.
#pragma once

#include <cstdio>
#include <string>
#include <unordered_map>

#include "export/buffered_file.hpp"
#include "export/timeline_sink.hpp"

namespace gpufl::exporter {

class ChromeSink : public TimelineSink {
 public:
  static constexpr int64_t kGpuTidBase = 1'000'000'000;

  explicit ChromeSink(const std::string& path);
  ~ChromeSink() override;
  bool ok() const { return out_.ok(); }
  const std::string& error() const { return out_.error(); }

  void process(uint64_t uuid, int64_t pid, std::string_view name) override;
  void thread(uint64_t uuid, uint64_t process_uuid, int64_t pid, int64_t tid,
              std::string_view name) override;
  void track(uint64_t uuid, uint64_t process_uuid, std::string_view name) override;
  void counterTrack(uint64_t uuid, uint64_t process_uuid, std::string_view name,
                    std::string_view unit) override;
  void begin(uint64_t track, int64_t ts_ns, std::string_view name, std::string_view category,
             std::span<const SliceArg> args, uint64_t flow) override;
  void end(uint64_t track, int64_t ts_ns) override;
  void complete(uint64_t track, int64_t begin_ns, int64_t end_ns, std::string_view name,
                std::string_view category, std::span<const SliceArg> args, uint64_t flow) override;
  void counter(uint64_t track, int64_t ts_ns, double value) override;
  void instant(uint64_t track, int64_t ts_ns, std::string_view name, std::string_view category,
               std::span<const SliceArg> args) override;
  bool finish(std::string* error) override;

 private:
  struct Place {
    int64_t pid = 0, tid = 0;
    std::string name;  // counters: the track's name
  };
  struct FlowStart {
    int64_t pid, tid, ts_ns;
  };
  void startEvent(char phase, const Place& at, int64_t ts_ns);
  void appendArgs(std::span<const SliceArg> args);
  void appendTs(int64_t ns);
  void closeEvent();

  BufferedFile out_;
  std::string& buffer_ = out_.text();
  bool first_event_ = true;
  std::unordered_map<uint64_t, Place> tracks_;
  std::unordered_map<uint64_t, int64_t> next_gpu_tid_;  // by process uuid
  std::unordered_map<uint64_t, FlowStart> flow_starts_;
  uint64_t next_flow_ = 1;
};

}  // namespace gpufl::exporter
