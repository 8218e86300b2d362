// libFuzzer target of `gpufl cat`'s formatter: the input is the content of one log file (zstd when
// it starts with the zstd magic number), read with the default session selection and written back
// through LogWriter::toStream, as runCat does. Beyond what the sanitizers catch, it checks that
// every line written is one valid JSON object, whatever was read. corpus_replay.cpp runs it without
// libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "log/json_escape.hpp"
#include "log/line_source.hpp"
#include "log/log_writer.hpp"
#include "log/record_parser.hpp"
#include "log/session_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpufl;
  fuzz::FuzzLog input(data, size);
  log::ReadOptions& options = input.options;
  const log::SourceOpener& open = input.open;
  char* buffer = nullptr;
  size_t length = 0;
  std::FILE* out = open_memstream(&buffer, &length);
  fuzz::require(out != nullptr);
  {
    auto writer = log::LogWriter::toStream(out);
    log::WarningList warnings(options.max_warnings);
    log::ReadResult result;
    log::readInputs({"fuzz.device.log"}, open, options, *writer, warnings, result);
    writer->close();
  }
  std::fclose(out);
  const std::string_view text(buffer, length);
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    fuzz::require(end != std::string::npos);
    const std::string_view line = text.substr(start, end - start);
    fuzz::require(!line.empty() && line.front() == '{' && log::isJsonValue(line));
    start = end + 1;
  }
  std::free(buffer);
  return 0;
}
