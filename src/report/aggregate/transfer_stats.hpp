// Memory transfer aggregation: per-direction copy counts, bytes and time, memsets apart.
#pragma once

#include <array>
#include <cstdint>

#include "core/events.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::report {

class TransferAggregator {
 public:
  void onMemcpy(const MemcpyEvent& e);
  void finish(TransferSummary& out) const;

 private:
  static constexpr size_t kKinds = 6;  // CopyKind values
  std::array<TransferStats, kKinds> copies_{};
  TransferStats memsets_{};
  uint64_t pageable_bytes_ = 0;
};

}  // namespace gpufl::report
