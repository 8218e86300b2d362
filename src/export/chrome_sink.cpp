#include "export/chrome_sink.hpp"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "log/json_escape.hpp"

namespace gpufl::exporter {
namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;
}

ChromeSink::ChromeSink(const std::string& path) : out_(path) {
  buffer_ = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
}

ChromeSink::~ChromeSink() = default;

void ChromeSink::appendTs(int64_t ns) {
  // Microseconds with exactly three decimals: "12.345" is 12345 ns.
  char text[32];
  const uint64_t mag = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
  std::snprintf(text, sizeof text, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", mag / 1000,
                mag % 1000);
  buffer_ += text;
}

void ChromeSink::startEvent(char phase, const Place& at, int64_t ts_ns) {
  buffer_ += first_event_ ? "\n{\"ph\":\"" : ",\n{\"ph\":\"";
  first_event_ = false;
  buffer_ += phase;
  buffer_ +=
      "\",\"pid\":" + std::to_string(at.pid) + ",\"tid\":" + std::to_string(at.tid) + ",\"ts\":";
  appendTs(ts_ns);
}

void ChromeSink::closeEvent() {
  buffer_ += '}';
  out_.flushWhenOver(kFlushBytes);
}

void ChromeSink::appendArgs(std::span<const SliceArg> args) {
  buffer_ += ",\"args\":{";
  bool first = true;
  for (const SliceArg& a : args) {
    if (!first) buffer_ += ',';
    first = false;
    log::appendJsonString(buffer_, a.name);
    buffer_ += ':';
    if (auto* i = std::get_if<int64_t>(&a.value))
      buffer_ += std::to_string(*i);
    else if (auto* u = std::get_if<uint64_t>(&a.value))
      buffer_ += std::to_string(*u);
    else if (auto* b = std::get_if<bool>(&a.value))
      buffer_ += *b ? "true" : "false";
    else if (auto* d = std::get_if<double>(&a.value)) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", std::isfinite(*d) ? *d : 0.0);
      buffer_ += text;
    } else {
      log::appendJsonString(buffer_, std::get<std::string_view>(a.value));
    }
  }
  buffer_ += '}';
}

void ChromeSink::process(uint64_t uuid, int64_t pid, std::string_view name) {
  tracks_[uuid] = {pid, 0, {}};
  startEvent('M', tracks_[uuid], 0);
  buffer_ += ",\"name\":\"process_name\",\"args\":{\"name\":";
  log::appendJsonString(buffer_, name);
  buffer_ += '}';
  closeEvent();
}

void ChromeSink::thread(uint64_t uuid, uint64_t, int64_t pid, int64_t tid, std::string_view name) {
  tracks_[uuid] = {pid, tid, {}};
  startEvent('M', tracks_[uuid], 0);
  buffer_ += ",\"name\":\"thread_name\",\"args\":{\"name\":";
  log::appendJsonString(buffer_, name);
  buffer_ += '}';
  closeEvent();
}

void ChromeSink::track(uint64_t uuid, uint64_t process_uuid, std::string_view name) {
  auto [it, fresh] = next_gpu_tid_.try_emplace(process_uuid, kGpuTidBase);
  thread(uuid, process_uuid, tracks_.at(process_uuid).pid, it->second++, name);
}

void ChromeSink::counterTrack(uint64_t uuid, uint64_t process_uuid, std::string_view name,
                              std::string_view unit) {
  std::string label(name);
  if (!unit.empty()) label += " (" + std::string(unit) + ")";
  tracks_[uuid] = {tracks_.at(process_uuid).pid, 0, std::move(label)};
}

void ChromeSink::begin(uint64_t track, int64_t ts_ns, std::string_view name,
                       std::string_view category, std::span<const SliceArg> args, uint64_t flow) {
  const Place& at = tracks_.at(track);
  startEvent('B', at, ts_ns);
  buffer_ += ",\"name\":";
  log::appendJsonString(buffer_, name);
  buffer_ += ",\"cat\":";
  log::appendJsonString(buffer_, category);
  appendArgs(args);
  closeEvent();
  if (flow) flow_starts_[flow] = {at.pid, at.tid, ts_ns};
}

void ChromeSink::end(uint64_t track, int64_t ts_ns) {
  startEvent('E', tracks_.at(track), ts_ns);
  closeEvent();
}

void ChromeSink::complete(uint64_t track, int64_t begin_ns, int64_t end_ns, std::string_view name,
                          std::string_view category, std::span<const SliceArg> args,
                          uint64_t flow) {
  const Place& at = tracks_.at(track);
  startEvent('X', at, begin_ns);
  buffer_ += ",\"dur\":";
  appendTs(end_ns - begin_ns);
  buffer_ += ",\"name\":";
  log::appendJsonString(buffer_, name);
  buffer_ += ",\"cat\":";
  log::appendJsonString(buffer_, category);
  appendArgs(args);
  closeEvent();
  auto from = flow ? flow_starts_.find(flow) : flow_starts_.end();
  if (from == flow_starts_.end()) return;
  const std::string id =
      ",\"name\":\"launch\",\"cat\":\"flow\",\"id\":" + std::to_string(next_flow_++);
  startEvent('s', {from->second.pid, from->second.tid, {}}, from->second.ts_ns);
  buffer_ += id;
  closeEvent();
  startEvent('f', at, begin_ns);
  buffer_ += id + ",\"bp\":\"e\"";
  closeEvent();
}

void ChromeSink::counter(uint64_t track, int64_t ts_ns, double value) {
  const Place& at = tracks_.at(track);
  startEvent('C', at, ts_ns);
  buffer_ += ",\"name\":";
  log::appendJsonString(buffer_, at.name);
  const SliceArg arg{"value", value};
  appendArgs({&arg, 1});
  closeEvent();
}

void ChromeSink::instant(uint64_t track, int64_t ts_ns, std::string_view name,
                         std::string_view category, std::span<const SliceArg> args) {
  startEvent('i', tracks_.at(track), ts_ns);
  buffer_ += ",\"s\":\"t\",\"name\":";  // drawn on its track (thread scope)
  log::appendJsonString(buffer_, name);
  buffer_ += ",\"cat\":";
  log::appendJsonString(buffer_, category);
  appendArgs(args);
  closeEvent();
}

bool ChromeSink::finish(std::string* error) {
  buffer_ += "\n]}\n";
  return out_.finish(error);
}

}  // namespace gpufl::exporter
