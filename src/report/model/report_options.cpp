#include "report/model/report_options.hpp"

#include <ctime>

#include "core/clock.hpp"

namespace gpufl::report {

std::string generatedAt(const ReportOptions& options) {
  if (!options.generated_at.empty()) return options.generated_at;
  std::timespec ts{};
  std::timespec_get(&ts, TIME_UTC);
  return core::utcText(static_cast<int64_t>(ts.tv_sec) * 1000000000);
}

}  // namespace gpufl::report
