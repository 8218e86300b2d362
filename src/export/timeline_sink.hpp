// What a timeline file format is asked to write: tracks, slices, counters and flows. The
// TimelineBuilder (timeline_builder.hpp) turns a session's events into these calls once; each
// format (Perfetto protobuf, Chrome JSON) implements them. Calls arrive in log order, not time
// order, except that slices on one GPU track come in start order (the builder reorders them within
// a bounded window).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace gpufl::exporter {

// One named value shown with a slice. Strings are views: valid only during the call.
struct SliceArg {
  std::string_view name;
  std::variant<int64_t, uint64_t, double, bool, std::string_view> value;
};

class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  // A process (one per exported session). `uuid`s are unique in the whole output.
  virtual void process(uint64_t uuid, int64_t pid, std::string_view name) = 0;
  // A host thread of a process (scopes and NVTX ranges nest on it).
  virtual void thread(uint64_t uuid, uint64_t process_uuid, int64_t pid, int64_t tid,
                      std::string_view name) = 0;
  // A named track inside a process (a GPU stream, one lane of one).
  virtual void track(uint64_t uuid, uint64_t process_uuid, std::string_view name) = 0;
  // A counter track inside a process; `unit` is free text ("%", "W", "MiB").
  virtual void counterTrack(uint64_t uuid, uint64_t process_uuid, std::string_view name,
                            std::string_view unit) = 0;

  // A slice opened at `ts_ns` and closed by the next end() on the same track (scopes).
  // `flow` (0: none) links this slice to the others carrying the same id.
  virtual void begin(uint64_t track, int64_t ts_ns, std::string_view name,
                     std::string_view category, std::span<const SliceArg> args, uint64_t flow) = 0;
  virtual void end(uint64_t track, int64_t ts_ns) = 0;
  // A slice whose end is known (kernels, copies).
  virtual void complete(uint64_t track, int64_t begin_ns, int64_t end_ns, std::string_view name,
                        std::string_view category, std::span<const SliceArg> args,
                        uint64_t flow) = 0;
  virtual void counter(uint64_t track, int64_t ts_ns, double value) = 0;
  // A moment on a track (incidents): a marker with no duration.
  virtual void instant(uint64_t track, int64_t ts_ns, std::string_view name,
                       std::string_view category, std::span<const SliceArg> args) = 0;

  // Everything written; false (with the reason in *error) when output failed.
  virtual bool finish(std::string* error) = 0;
};

}  // namespace gpufl::exporter
