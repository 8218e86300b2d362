// libFuzzer target of the report: the input is the content of one log file (zstd when it starts
// with the zstd magic number), read as reportFromPrefix reads a prefix, aggregated by
// ReportAggregator (the model and the sections' own collectors) and rendered as text and as JSON.
// Beyond what the sanitizers catch (signed overflow on extreme times, bad indexing), it checks what
// must hold for any log: every text line is already terminal-safe (no control character from a name
// reaches a terminal) and the JSON is one valid JSON value. corpus_replay.cpp runs it without
// libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "core/terminal_text.hpp"
#include "fuzz_input.hpp"
#include "log/json_escape.hpp"
#include "log/line_source.hpp"
#include "log/record_parser.hpp"
#include "log/session_reader.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufl;
  fuzz::FuzzLog input(data, size);
  log::ReadOptions& options = input.options;
  const log::SourceOpener& open = input.open;
  log::WarningList warnings(options.max_warnings);
  log::ReadResult result;
  report::ReportAggregator aggregator;
  log::readInputs({"fuzz.device.log"}, open, options, aggregator.input(), warnings, result);
  aggregator.builder().setReaderWarnings(result.warning_count);
  const report::Report r = std::move(aggregator).build();
  report::ReportOptions render;
  render.generated_at = "fuzz";
  render.top_n =
      3;  // fewer rows than the default, more inputs per second; every section still renders
  const std::string text = report::renderText(r, render);
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    fuzz::require(end != std::string::npos);  // every line ends with '\n'
    const std::string_view line(text.data() + start, end - start);
    fuzz::require(terminalSafe(line) == line);
    start = end + 1;
  }
  fuzz::require(log::isJsonValue(report::renderJson(r, render)));
  return 0;
}
