// Where the deep engines' time goes: wall time and call counts per hook (start, contexts, modules,
// launches, scopes, drain, stop), measured by the tracer around each call into the engines.
//
// Deep modes cost whole seconds at start-up and shutdown of big programs (PyTorch: ~11 s with PC
// sampling or SASS metrics, 2026-11-29) while the timed steps were not slower; the session note
// this produces says which hook pays, on every run, so users and we can see it without a profiler.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace gpufl::cuda {

enum class EngineHook : uint8_t { Start, Context, Module, Launch, Scope, Drain, Stop, kCount };

class EngineTime {
 public:
  // Adds the wall time from construction to destruction to `hook`.
  class Span {
   public:
    Span(EngineTime& time, EngineHook hook);
    ~Span();
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;

   private:
    EngineTime& time_;
    EngineHook hook_;
    int64_t start_ns_;
  };

  // [any thread]
  void add(EngineHook hook, int64_t ns);
  uint64_t ns(EngineHook hook) const;
  uint64_t calls(EngineHook hook) const;
  // "start 0.012 s, contexts 1.204 s (2), drain 6.310 s (45), ..."; hooks never called are left
  // out; "" when nothing was measured.
  std::string summary() const;

 private:
  static constexpr size_t kHooks = static_cast<size_t>(EngineHook::kCount);
  std::array<std::atomic<uint64_t>, kHooks> ns_{};
  std::array<std::atomic<uint64_t>, kHooks> calls_{};
};

}  // namespace gpufl::cuda
