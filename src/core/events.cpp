#include "core/events.hpp"

#include "core/event_visitor.hpp"
#include "core/record_schema.hpp"  // its static_asserts check every field table against its struct

namespace gpufl {
namespace {

template <typename E, size_t N>
std::optional<E> lookup(const char* const (&names)[N], const std::string& name) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

constexpr const char* kEngineNames[] = {"None", "PcSampling", "SassMetrics", "PcSamplingWithSass",
                                        "RangeProfiler"};
constexpr const char* kLimitNames[] = {"none", "registers", "shared_mem", "warps", "blocks"};
constexpr const char* kCopyNames[] = {"unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
constexpr const char* kChannelNames[] = {"device", "scope", "system"};
constexpr const char* kSyncNames[] = {"unknown", "event_synchronize", "stream_wait_event",
                                      "stream_synchronize", "context_synchronize"};

}  // namespace

std::string dim3Text(const Dim3& d) {
  std::string s = "(";
  s += std::to_string(d.x);
  s += ',';
  s += std::to_string(d.y);
  s += ',';
  s += std::to_string(d.z);
  s += ')';
  return s;
}

const char* engineName(Engine e) {
  return kEngineNames[static_cast<int>(e)];
}
std::optional<Engine> engineFromName(const std::string& n) {
  return lookup<Engine>(kEngineNames, n);
}

const char* limitingResourceName(LimitingResource r) {
  return kLimitNames[static_cast<int>(r)];
}
std::optional<LimitingResource> limitingResourceFromName(const std::string& n) {
  return lookup<LimitingResource>(kLimitNames, n);
}

const char* copyKindName(CopyKind k) {
  return kCopyNames[static_cast<int>(k)];
}
std::optional<CopyKind> copyKindFromName(const std::string& n) {
  return lookup<CopyKind>(kCopyNames, n);
}

const char* syncKindName(SyncKind k) {
  return kSyncNames[static_cast<int>(k)];
}
std::optional<SyncKind> syncKindFromName(const std::string& n) {
  return lookup<SyncKind>(kSyncNames, n);
}

const char* channelName(Channel c) {
  return kChannelNames[static_cast<int>(c)];
}

}  // namespace gpufl
