// Helpers for the RecordDecoder's tests: one file's text through a decoder, compact kernel_event
// lines.
#pragma once

#include <memory>
#include <string>

#include "log/line_source.hpp"
#include "log/reader_test_util.hpp"
#include "log/record_parser.hpp"

namespace gpufl::log::testing {

inline constexpr const char* kFile = "t.device.log";

struct Decoded {
  RecordingVisitor v;
  std::vector<ReadWarning> warnings;
  uint64_t delivered = 0;
  std::string all() const { return testing::allWarnings(warnings); }
};

// Runs `text` through a RecordDecoder as the content of one file named kFile.
inline std::unique_ptr<Decoded> decode(const std::string& text, const std::string& sid = "abcd1234",
                                       size_t max_line = kDefaultMaxLineBytes) {
  auto d = std::make_unique<Decoded>();
  WarningList warnings(1000);
  RecordDecoder decoder(sid, d->v, warnings);
  auto source = LineSource::fromMemory(text, LineSource::Format::Plain, max_line);
  decoder.beginFile(kFile);
  Line line;
  while (source->next(line)) {
    if (line.status == Line::Status::TooLong)
      decoder.lostLine(line.number, "too long");
    else
      decoder.decodeLine(line.text, line.number, line.terminated);
  }
  decoder.endFile();
  d->warnings = warnings.kept();
  d->delivered = decoder.delivered();
  return d;
}

inline std::string kernelAbs(int k, int64_t start, uint64_t corr, int64_t dur,
                             const char* sid = "abcd1234") {
  return std::string(R"({"type":"kernel_event","sid":")") + sid + R"(","k":)" + std::to_string(k) +
         R"(,"stream":7,"scope":0,"dur_ns":)" + std::to_string(dur) + R"(,"start_ns":)" +
         std::to_string(start) + R"(,"corr":)" + std::to_string(corr) + "}\n";
}

inline std::string kernelDelta(int k, int64_t dt, int64_t dcorr, int64_t dur,
                               const char* sid = "abcd1234") {
  return std::string(R"({"type":"kernel_event","sid":")") + sid + R"(","k":)" + std::to_string(k) +
         R"(,"stream":7,"scope":0,"dur_ns":)" + std::to_string(dur) + R"(,"dt_ns":)" +
         std::to_string(dt) + R"(,"dcorr":)" + std::to_string(dcorr) + "}\n";
}

}  // namespace gpufl::log::testing
