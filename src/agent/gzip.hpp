// gzip (RFC 1952) compression of a batch body, fed line by line, through zlib.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace gpufl::agent {

class GzipWriter {
 public:
  // level: zlib's 1 (fastest) .. 9; 1 keeps the agent near 200k lines/s on one core.
  explicit GzipWriter(int level = 1);
  ~GzipWriter();
  GzipWriter(const GzipWriter&) = delete;
  GzipWriter& operator=(const GzipWriter&) = delete;

  void append(std::string_view data);
  // Ends the stream and returns the compressed bytes; the writer is ready for a new stream after
  // it.
  std::string finish();
  size_t inputBytes() const { return input_bytes_; }
  size_t outputBytes() const { return out_.size(); }

 private:
  void deflateSome(int flush);
  struct Stream;
  std::unique_ptr<Stream> z_;
  int level_;
  std::string out_;
  size_t input_bytes_ = 0;
};

// Decompresses a gzip stream (tests, the spool check); false on damaged input.
bool gunzip(std::string_view in, std::string* out);

}  // namespace gpufl::agent
