#include "export/buffered_file.hpp"

#include <cerrno>
#include <cstring>

namespace gpufl::exporter {

BufferedFile::BufferedFile(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) error_ = path + ": cannot write: " + std::strerror(errno);
}

BufferedFile::~BufferedFile() {
  if (file_) std::fclose(file_);
}

void BufferedFile::write() {
  if (file_ && error_.empty() && !buffer_.empty() &&
      std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    error_ = path_ + ": write failed: " + std::strerror(errno);
  buffer_.clear();
}

void BufferedFile::flushWhenOver(size_t bytes) {
  if (buffer_.size() >= bytes) write();
}

bool BufferedFile::finish(std::string* error) {
  write();
  if (file_ && std::fclose(file_) != 0 && error_.empty())
    error_ = path_ + ": close failed: " + std::strerror(errno);
  file_ = nullptr;
  if (!error_.empty() && error) *error = error_;
  return error_.empty();
}

}  // namespace gpufl::exporter
