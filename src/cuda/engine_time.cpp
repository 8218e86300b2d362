#include "cuda/engine_time.hpp"

#include <cstdio>

#include "core/clock.hpp"

namespace gpufl::cuda {
namespace {

constexpr const char* kHookNames[] = {"start",  "contexts", "modules", "launch hooks",
                                      "scopes", "drain",    "stop"};
static_assert(std::size(kHookNames) == static_cast<size_t>(EngineHook::kCount));

}  // namespace

EngineTime::Span::Span(EngineTime& time, EngineHook hook)
    : time_(time), hook_(hook), start_ns_(core::monotonicNs()) {}

EngineTime::Span::~Span() {
  time_.add(hook_, core::monotonicNs() - start_ns_);
}

void EngineTime::add(EngineHook hook, int64_t ns) {
  const auto i = static_cast<size_t>(hook);
  ns_[i].fetch_add(ns > 0 ? static_cast<uint64_t>(ns) : 0, std::memory_order_relaxed);
  calls_[i].fetch_add(1, std::memory_order_relaxed);
}

uint64_t EngineTime::ns(EngineHook hook) const {
  return ns_[static_cast<size_t>(hook)].load(std::memory_order_relaxed);
}

uint64_t EngineTime::calls(EngineHook hook) const {
  return calls_[static_cast<size_t>(hook)].load(std::memory_order_relaxed);
}

std::string EngineTime::summary() const {
  std::string out;
  for (size_t i = 0; i < kHooks; ++i) {
    const uint64_t n = calls_[i].load(std::memory_order_relaxed);
    if (n == 0) continue;
    char item[96];
    const double seconds = static_cast<double>(ns_[i].load(std::memory_order_relaxed)) / 1e9;
    if (n == 1) {
      std::snprintf(item, sizeof item, "%s %.3f s", kHookNames[i], seconds);
    } else {
      std::snprintf(item, sizeof item, "%s %.3f s (%llu)", kHookNames[i], seconds,
                    static_cast<unsigned long long>(n));
    }
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

}  // namespace gpufl::cuda
