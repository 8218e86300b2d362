// Host call stacks of kernel launches (enable_stack_trace): captured cheaply on the application
// thread as raw return addresses and interned to a small id; symbolized later, on the writer
// thread, once per distinct stack.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace gpufl {

class StackTable {
 public:
  static constexpr int kMaxFrames = 24;
  static constexpr size_t kMaxStacks = 1u
                                       << 16;  // distinct stacks kept; more are counted, not stored

  // [app thread] Captures the caller's stack (skipping `skip` innermost frames) and returns its id
  // (1..), or 0 when the table is full. A stack seen before costs the unwind plus one hash lookup
  // under a short lock.
  uint32_t capture(int skip);

  // [writer thread] Stacks interned since the last call, symbolized: (id, frames innermost first).
  std::vector<std::pair<uint32_t, std::vector<std::string>>> takeNew();

  uint64_t overflowed() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, uint32_t> ids_;  // hash of addresses -> id
  std::vector<std::pair<uint32_t, std::vector<void*>>> pending_;
  uint32_t next_id_ = 1;
  uint64_t overflowed_ = 0;
};

// "symbol+0x1f (libfoo.so)" for one return address; the address in hex when nothing is known.
std::string symbolizeFrame(const void* address);

}  // namespace gpufl
