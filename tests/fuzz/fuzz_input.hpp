// What report_fuzz and cat_fuzz share: one fuzz input as the only file of a log (zstd when it
// starts with zstd's magic), read with a small line limit, and a check that stops the fuzzer on a
// broken property.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "log/line_source.hpp"
#include "log/session_reader.hpp"

namespace gpufl::fuzz {

inline void require(bool ok) {
  if (!ok) __builtin_trap();
}

struct FuzzLog {
  FuzzLog(const uint8_t* data, size_t size)
      : bytes(reinterpret_cast<const char*>(data), size),
        format(size >= 4 && std::memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0
                   ? log::LineSource::Format::Zstd
                   : log::LineSource::Format::Plain) {
    // Not the 1 MiB buffer of the default (slow); reader_fuzz tests the limits.
    options.max_line_bytes = 4096;
    open = [this](const std::string&, std::string*) {
      return log::LineSource::fromMemory(bytes, format, options.max_line_bytes);
    };
  }
  FuzzLog(const FuzzLog&) = delete;  // `open` refers to this object
  FuzzLog& operator=(const FuzzLog&) = delete;

  std::string_view bytes;
  log::LineSource::Format format;
  log::ReadOptions options;
  log::SourceOpener open;
};

}  // namespace gpufl::fuzz
