// Perfetto's protobuf trace format (TracePacket / TrackEvent), written with protozero and streamed
// to a file in chunks: memory holds the interning tables (distinct names, not events) and one
// chunk.
//
// Each process gets its own packet sequence; names, categories, argument names and string argument
// values are interned per sequence (incremental state), so a repeated kernel costs an id, not its
// name.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "export/buffered_file.hpp"
#include "export/timeline_sink.hpp"

namespace gpufl::exporter {

class PerfettoSink : public TimelineSink {
 public:
  // Writes to `path`, whole or not at all (BufferedFile); ok() is false with error() set when it
  // cannot be written.
  explicit PerfettoSink(const std::string& path);
  ~PerfettoSink() override;
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
  // Hashes string_views too, so that looking a name up builds no std::string.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using InternTable = std::unordered_map<std::string, uint64_t, NameHash, std::equal_to<>>;
  // Interning tables of one packet sequence (one per process).
  struct Sequence {
    uint32_t id = 0;
    bool started = false;
    InternTable names, categories, arg_names, strings;
  };
  // Names interned by the packet being built, written into its interned_data.
  struct NewEntries;

  Sequence& sequenceOfTrack(uint64_t track);
  void writeEvent(uint64_t track, int64_t ts_ns, int type, std::string_view name,
                  std::string_view category, std::span<const SliceArg> args, uint64_t flow,
                  const double* counter);
  void writeDescriptor(const std::string& descriptor);
  void flushIfFull();

  BufferedFile out_;
  std::string& buffer_ = out_.text();                     // serialized packets not yet written
  std::map<uint64_t, Sequence> sequences_;                // by process uuid
  std::unordered_map<uint64_t, uint64_t> track_process_;  // track uuid -> process uuid
  uint32_t next_sequence_ = 1;
};

}  // namespace gpufl::exporter
