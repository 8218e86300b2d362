// What a caller asks of a report and what it gets back (report.hpp's reportFromPrefix, the ranks'
// reportFromPrefixes); the sections read the options too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpufl::report {

inline constexpr uint64_t kProgressRecords = 1 << 14;

struct ReportOptions {
  int top_n = 10;
  std::string generated_at;  // "2026-05-22 05:05:33 UTC"; empty = now (golden tests pin it)
  bool verbose = false;      // Collection Notes in full (every feature note, gpufl's own costs)
  bool wide_names =
      false;  // kernel names whole in the kernel tables and cards (gpufl report --wide)
  // Output width (core/output_width) of the text's tables fitted to it; kUnlimitedWidth for no
  // limit. Prose sections keep to 79 columns whatever it is.
  std::size_t width = 80;
  // Called every kProgressRecords records read (and not at all for small sessions), so a caller can
  // show progress on a large one. Runs on the reading thread.
  std::function<void(uint64_t records)> on_progress = {};
};

struct ReportOutput {
  bool ok = false;                    // false when nothing was readable
  std::string text;                   // the text report (or the JSON when asked)
  std::vector<std::string> warnings;  // "file:line: message", for stderr
  std::string error;                  // when !ok: why, in one line (not repeated in warnings)
  bool no_files = false;              // when !ok: the prefix has no log files at all
};

// options.generated_at, or the current UTC time in the same format when it is empty.
std::string generatedAt(const ReportOptions& options);

}  // namespace gpufl::report
