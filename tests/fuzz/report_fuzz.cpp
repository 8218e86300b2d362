// libFuzzer target of the report: the input is the content of one log file (zstd when it starts
// with the zstd magic number), read as reportFromPrefix reads a prefix, aggregated by ReportBuilder
// and rendered as text and as JSON. Beyond what the sanitizers catch (signed overflow on extreme
// times, bad indexing), it checks what must hold for any log: every text line is already
// terminal-safe (no control character from a name reaches a terminal) and the JSON is one valid
// JSON value. corpus_replay.cpp runs it without libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/terminal_text.hpp"
#include "log/json_escape.hpp"
#include "log/line_source.hpp"
#include "log/record_parser.hpp"
#include "log/session_reader.hpp"
#include "report/report.hpp"
#include "report/report_builder.hpp"

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufl;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const bool zstd = size >= 4 && std::memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0;
  const auto format = zstd ? log::LineSource::Format::Zstd : log::LineSource::Format::Plain;
  log::ReadOptions options;
  options.max_line_bytes =
      4096;  // not the 1 MiB buffer of the default (slow); reader_fuzz tests limits
  const log::SourceOpener open = [&](const std::string&, std::string*) {
    return log::LineSource::fromMemory(bytes, format, options.max_line_bytes);
  };
  log::WarningList warnings(options.max_warnings);
  log::ReadResult result;
  report::ReportBuilder builder;
  log::readInputs({"fuzz.device.log"}, open, options, builder, warnings, result);
  builder.setReaderWarnings(result.warning_count);
  const report::Report r = builder.build();
  report::ReportOptions render;
  render.generated_at = "fuzz";
  render.top_n =
      3;  // fewer rows than the default, more inputs per second; every section still renders
  const std::string text = report::renderText(r, render);
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    require(end != std::string::npos);  // every line ends with '\n'
    const std::string_view line(text.data() + start, end - start);
    require(terminalSafe(line) == line);
    start = end + 1;
  }
  require(log::isJsonValue(report::renderJson(r, render)));
  return 0;
}
