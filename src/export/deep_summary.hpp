// Per-function deep data (SASS metrics, PC-sampling stalls) of a session, gathered before its
// kernels are exported: the log writes these records at the end of the device channel, after every
// kernel_event, yet they belong on each kernel slice. Memory grows with the number of functions,
// not launches.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/event_visitor.hpp"
#include "report/model/report_model.hpp"

namespace gpufl::exporter {

struct FunctionDeep {
  bool has_sass = false;
  report::SassTotals sass;                 // the report's own arithmetic (efficiencies)
  std::map<std::string, uint64_t> stalls;  // reason -> samples
  uint64_t stall_samples = 0;
};

class DeepSummary : public EventVisitor {
 public:
  void onSassMetric(const SassMetric& m) override;
  void onPcSample(const PcSample& s) override;
  // nullptr when the function (mangled name) has no deep data.
  const FunctionDeep* find(const std::string& func) const;
  bool empty() const { return funcs_.empty(); }

 private:
  std::map<std::string, FunctionDeep> funcs_;
};

// "long_scoreboard 61%, wait 20%, math_pipe_throttle 9%": the `n` reasons with the most samples
// (ties in name order), percentages of all the function's samples rounded to whole numbers.
std::string topStalls(const FunctionDeep& f, size_t n);

}  // namespace gpufl::exporter
