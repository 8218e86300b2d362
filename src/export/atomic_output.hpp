// An export's output file, which appears whole or not at all: written to a new temporary file
// beside it, renamed over the path only once complete. A failed or abandoned export leaves no
// partial file and no temporary (and an older file at the path as it was). The output is never
// written through a symbolic link: a link (or a FIFO, a device, a directory) at the path is
// refused with a message; rename() replaces a name, it never follows one.
#pragma once

#include <string>

namespace gpufl::exporter {

class AtomicOutput {
 public:
  // Checks the path and creates the temporary file (mode 0666 less the umask, like any new file).
  // ok() is false with error() set when either fails.
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();  // discard() unless committed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  bool ok() const { return !temp_.empty() && error_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  const std::string& tempPath() const { return temp_; }
  int fd() const { return fd_; }  // -1 once closed
  // Closes the descriptor, for a library that opens the temporary file by its name (SQLite: a
  // second descriptor of a file, closed, would drop the library's locks on it).
  void closeFd();

  // Writes all of `data`; false with error() set on a failure (the first one is kept).
  bool write(const char* data, size_t size);
  // Syncs the temporary file to disk and renames it over the path; false with *error (when given)
  // and nothing left behind on any failure, including an earlier write's.
  bool commit(std::string* error);
  void discard();  // removes the temporary file; idempotent

 private:
  bool fail(const std::string& what, int err);
  std::string path_, temp_, error_;
  int fd_ = -1;
  bool done_ = false;
};

}  // namespace gpufl::exporter
