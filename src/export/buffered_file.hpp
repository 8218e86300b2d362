// An output file written through a memory buffer, for the exporters: the caller appends to text(),
// the buffer goes to disk in large writes, and the first failure (open, write, close) is kept with
// the file's name so the command can say what went wrong and where.
#pragma once

#include <cstdio>
#include <string>

namespace gpufl::exporter {

class BufferedFile {
 public:
  // Creates or truncates `path`; ok() is false with error() set when it cannot be opened.
  explicit BufferedFile(const std::string& path);
  ~BufferedFile();
  BufferedFile(const BufferedFile&) = delete;
  BufferedFile& operator=(const BufferedFile&) = delete;

  bool ok() const { return file_ != nullptr; }
  const std::string& error() const { return error_; }
  std::string& text() { return buffer_; }  // what is not written yet

  // Writes the buffer out once it holds `bytes` or more (after a failure: drops it, the error
  // stays).
  void flushWhenOver(size_t bytes);
  // Writes the rest and closes the file; false, with `*error` set when given, after any failure.
  bool finish(std::string* error);

 private:
  void write();

  std::FILE* file_ = nullptr;
  std::string path_, error_, buffer_;
};

}  // namespace gpufl::exporter
