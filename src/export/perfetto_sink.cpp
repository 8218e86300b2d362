#include "export/perfetto_sink.hpp"

#include <cerrno>
#include <cstring>
#include <protozero/basic_pbf_writer.hpp>
#include <protozero/buffer_string.hpp>
#include <vector>

namespace gpufl::exporter {
namespace {

using Writer = protozero::basic_pbf_writer<std::string>;

// Field numbers of perfetto/trace/trace_packet.proto and track_event/*.proto (checked by the Python
// test, which decodes our output with Perfetto's own generated classes).
namespace trace {
constexpr uint32_t kPacket = 1;
}
namespace packet {
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kInternedData = 12,
                   kSequenceFlags = 13, kTrackDescriptor = 60, kFirstPacketOnSequence = 87;
constexpr uint32_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;
}  // namespace packet
namespace event {
constexpr uint32_t kCategoryIids = 3, kDebugAnnotations = 4, kType = 9, kNameIid = 10,
                   kTrackUuid = 11, kDoubleCounterValue = 44, kFlowIds = 47;
}
namespace annotation {
constexpr uint32_t kNameIid = 1, kBool = 2, kUint = 3, kInt = 4, kDouble = 5, kStringIid = 17;
}
namespace interned {  // InternedData fields; each entry is {iid = 1, name/str = 2}
constexpr uint32_t kCategories = 1, kNames = 2, kArgNames = 3, kStrings = 29;
}
namespace descriptor {
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5, kCounter = 8;
constexpr uint32_t kProcessPid = 1, kProcessName = 6;
constexpr uint32_t kThreadPid = 1, kThreadTid = 2, kThreadName = 5;
constexpr uint32_t kCounterUnitName = 6;
}  // namespace descriptor

constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

struct PerfettoSink::NewEntries {
  struct Entry {
    uint32_t field;
    uint64_t iid;
    std::string_view text;  // points into the interning table (stable: node-based map)
  };
  std::vector<Entry> entries;
  uint64_t intern(InternTable& table, uint32_t field, std::string_view text) {
    auto it = table.find(text);
    if (it != table.end()) return it->second;
    const uint64_t iid = table.size() + 1;
    it = table.emplace(std::string(text), iid).first;
    entries.push_back({field, iid, it->first});
    return iid;
  }
};

PerfettoSink::PerfettoSink(const std::string& path) : out_(path) {
  buffer_.reserve(kFlushBytes + (kFlushBytes >> 2));
}

PerfettoSink::~PerfettoSink() = default;

void PerfettoSink::flushIfFull() {
  out_.flushWhenOver(kFlushBytes);
}

void PerfettoSink::writeDescriptor(const std::string& descriptor) {
  Writer out{buffer_};
  {
    Writer pkt{out, trace::kPacket};
    pkt.add_message(packet::kTrackDescriptor, descriptor);
  }
  flushIfFull();
}

void PerfettoSink::process(uint64_t uuid, int64_t pid, std::string_view name) {
  Sequence& seq = sequences_[uuid];
  seq.id = next_sequence_++;
  track_process_[uuid] = uuid;
  std::string d;
  {
    Writer w{d};
    w.add_uint64(descriptor::kUuid, uuid);
    Writer p{w, descriptor::kProcess};
    p.add_int32(descriptor::kProcessPid, static_cast<int32_t>(pid));
    p.add_string(descriptor::kProcessName, name.data(), name.size());
  }
  writeDescriptor(d);
}

void PerfettoSink::thread(uint64_t uuid, uint64_t process_uuid, int64_t pid, int64_t tid,
                          std::string_view name) {
  track_process_[uuid] = process_uuid;
  std::string d;
  {
    Writer w{d};
    w.add_uint64(descriptor::kUuid, uuid);
    w.add_uint64(descriptor::kParentUuid, process_uuid);
    Writer t{w, descriptor::kThread};
    t.add_int32(descriptor::kThreadPid, static_cast<int32_t>(pid));
    t.add_int32(descriptor::kThreadTid, static_cast<int32_t>(tid));
    t.add_string(descriptor::kThreadName, name.data(), name.size());
  }
  writeDescriptor(d);
}

void PerfettoSink::track(uint64_t uuid, uint64_t process_uuid, std::string_view name) {
  track_process_[uuid] = process_uuid;
  std::string d;
  {
    Writer w{d};
    w.add_uint64(descriptor::kUuid, uuid);
    w.add_uint64(descriptor::kParentUuid, process_uuid);
    w.add_string(descriptor::kName, name.data(), name.size());
  }
  writeDescriptor(d);
}

void PerfettoSink::counterTrack(uint64_t uuid, uint64_t process_uuid, std::string_view name,
                                std::string_view unit) {
  track_process_[uuid] = process_uuid;
  std::string d;
  {
    Writer w{d};
    w.add_uint64(descriptor::kUuid, uuid);
    w.add_uint64(descriptor::kParentUuid, process_uuid);
    w.add_string(descriptor::kName, name.data(), name.size());
    Writer c{w, descriptor::kCounter};
    c.add_string(descriptor::kCounterUnitName, unit.data(), unit.size());
  }
  writeDescriptor(d);
}

PerfettoSink::Sequence& PerfettoSink::sequenceOfTrack(uint64_t track) {
  return sequences_[track_process_.at(track)];
}

void PerfettoSink::writeEvent(uint64_t track, int64_t ts_ns, int type, std::string_view name,
                              std::string_view category, std::span<const SliceArg> args,
                              uint64_t flow, const double* counter) {
  Sequence& seq = sequenceOfTrack(track);
  NewEntries fresh;
  Writer out{buffer_};
  {
    Writer pkt{out, trace::kPacket};
    pkt.add_uint64(packet::kTimestamp, static_cast<uint64_t>(ts_ns));
    pkt.add_uint32(packet::kSequenceId, seq.id);
    uint32_t flags = packet::kNeedsIncrementalState;
    if (!seq.started) {
      flags |= packet::kIncrementalStateCleared;
      pkt.add_bool(packet::kFirstPacketOnSequence, true);
      seq.started = true;
    }
    pkt.add_uint32(packet::kSequenceFlags, flags);
    {
      Writer ev{pkt, packet::kTrackEvent};
      ev.add_enum(event::kType, type);
      ev.add_uint64(event::kTrackUuid, track);
      if (!category.empty())
        ev.add_uint64(event::kCategoryIids,
                      fresh.intern(seq.categories, interned::kCategories, category));
      if (!name.empty())
        ev.add_uint64(event::kNameIid, fresh.intern(seq.names, interned::kNames, name));
      for (const SliceArg& arg : args) {
        Writer a{ev, event::kDebugAnnotations};
        a.add_uint64(annotation::kNameIid,
                     fresh.intern(seq.arg_names, interned::kArgNames, arg.name));
        if (auto* i = std::get_if<int64_t>(&arg.value))
          a.add_int64(annotation::kInt, *i);
        else if (auto* u = std::get_if<uint64_t>(&arg.value))
          a.add_uint64(annotation::kUint, *u);
        else if (auto* d = std::get_if<double>(&arg.value))
          a.add_double(annotation::kDouble, *d);
        else if (auto* b = std::get_if<bool>(&arg.value))
          a.add_bool(annotation::kBool, *b);
        else
          a.add_uint64(annotation::kStringIid, fresh.intern(seq.strings, interned::kStrings,
                                                            std::get<std::string_view>(arg.value)));
      }
      if (flow) ev.add_fixed64(event::kFlowIds, flow);
      if (counter) ev.add_double(event::kDoubleCounterValue, *counter);
    }
    if (!fresh.entries.empty()) {
      Writer in{pkt, packet::kInternedData};
      for (const NewEntries::Entry& e : fresh.entries) {
        Writer entry{in, e.field};
        entry.add_uint64(1, e.iid);
        entry.add_string(2, e.text.data(), e.text.size());
      }
    }
  }
  flushIfFull();
}

void PerfettoSink::begin(uint64_t track, int64_t ts_ns, std::string_view name,
                         std::string_view category, std::span<const SliceArg> args, uint64_t flow) {
  writeEvent(track, ts_ns, 1, name, category, args, flow, nullptr);
}

void PerfettoSink::end(uint64_t track, int64_t ts_ns) {
  writeEvent(track, ts_ns, 2, {}, {}, {}, 0, nullptr);
}

void PerfettoSink::complete(uint64_t track, int64_t begin_ns, int64_t end_ns, std::string_view name,
                            std::string_view category, std::span<const SliceArg> args,
                            uint64_t flow) {
  writeEvent(track, begin_ns, 1, name, category, args, flow, nullptr);
  writeEvent(track, end_ns, 2, {}, {}, {}, 0, nullptr);
}

void PerfettoSink::counter(uint64_t track, int64_t ts_ns, double value) {
  writeEvent(track, ts_ns, 4, {}, {}, {}, 0, &value);
}

void PerfettoSink::instant(uint64_t track, int64_t ts_ns, std::string_view name,
                           std::string_view category, std::span<const SliceArg> args) {
  writeEvent(track, ts_ns, 3, name, category, args, 0, nullptr);  // TrackEvent.TYPE_INSTANT
}

bool PerfettoSink::finish(std::string* error) {
  return out_.finish(error);
}

}  // namespace gpufl::exporter
