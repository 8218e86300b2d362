#include "export/buffered_file.hpp"

namespace gpufl::exporter {

BufferedFile::BufferedFile(const std::string& path) : out_(path) {}

void BufferedFile::write() {
  if (!buffer_.empty()) out_.write(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void BufferedFile::flushWhenOver(size_t bytes) {
  if (buffer_.size() >= bytes) write();
}

bool BufferedFile::finish(std::string* error) {
  write();
  return out_.commit(error);
}

}  // namespace gpufl::exporter
