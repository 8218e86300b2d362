// An output file written through a memory buffer, for the exporters: the caller appends to text(),
// the buffer goes to disk in large writes, and the first failure (open, write, close) is kept with
// the file's name so the command can say what went wrong and where. The file appears whole or not
// at all (AtomicOutput): it is written beside the path and renamed over it by finish(); an export
// that fails or never finishes leaves no partial file, and a link at the path is refused.
#pragma once

#include <string>

#include "export/atomic_output.hpp"

namespace gpufl::exporter {

class BufferedFile {
 public:
  // ok() is false with error() set when `path` cannot be written (a link, not a regular file, a
  // directory that cannot be written to).
  explicit BufferedFile(const std::string& path);
  BufferedFile(const BufferedFile&) = delete;
  BufferedFile& operator=(const BufferedFile&) = delete;

  bool ok() const { return out_.ok(); }
  const std::string& error() const { return out_.error(); }
  std::string& text() { return buffer_; }  // what is not written yet

  // Writes the buffer out once it holds `bytes` or more (after a failure: drops it, the error
  // stays).
  void flushWhenOver(size_t bytes);
  // Writes the rest and puts the file in place; false, with `*error` set when given, after any
  // failure (then nothing is left at the path but what was there before).
  bool finish(std::string* error);

 private:
  void write();

  AtomicOutput out_;
  std::string buffer_;
};

}  // namespace gpufl::exporter
