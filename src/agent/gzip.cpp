#include "agent/gzip.hpp"

#include <zlib.h>

#include <stdexcept>

namespace gpufl::agent {

struct GzipWriter::Stream {
  z_stream s{};
};

namespace {
constexpr int kGzipWindowBits = 15 + 16;  // +16: gzip header and trailer instead of zlib's
}

GzipWriter::GzipWriter(int level) : z_(std::make_unique<Stream>()), level_(level) {
  if (deflateInit2(&z_->s, level_, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib deflateInit2 failed");
}

GzipWriter::~GzipWriter() {
  deflateEnd(&z_->s);
}

void GzipWriter::deflateSome(int flush) {
  z_stream& s = z_->s;
  for (;;) {
    size_t old = out_.size();
    size_t room = 64 << 10;
    out_.resize(old + room);
    s.next_out = reinterpret_cast<Bytef*>(out_.data() + old);
    s.avail_out = static_cast<uInt>(room);
    int rc = deflate(&s, flush);
    out_.resize(old + room - s.avail_out);
    if (rc == Z_STREAM_END) return;
    if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("zlib deflate failed");
    if (flush == Z_NO_FLUSH && s.avail_in == 0) return;
    if (s.avail_out != 0 && flush != Z_FINISH) return;
  }
}

void GzipWriter::append(std::string_view data) {
  if (data.empty()) return;
  z_->s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z_->s.avail_in = static_cast<uInt>(data.size());
  input_bytes_ += data.size();
  while (z_->s.avail_in != 0) deflateSome(Z_NO_FLUSH);
}

std::string GzipWriter::finish() {
  z_->s.next_in = nullptr;
  z_->s.avail_in = 0;
  deflateSome(Z_FINISH);
  std::string done;
  done.swap(out_);
  deflateReset(&z_->s);
  input_bytes_ = 0;
  return done;
}

bool gunzip(std::string_view in, std::string* out) {
  z_stream s{};
  if (inflateInit2(&s, kGzipWindowBits) != Z_OK) return false;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  s.avail_in = static_cast<uInt>(in.size());
  out->clear();
  int rc = Z_OK;
  while (rc == Z_OK) {
    size_t old = out->size();
    out->resize(old + (256 << 10));
    s.next_out = reinterpret_cast<Bytef*>(out->data() + old);
    s.avail_out = 256 << 10;
    rc = inflate(&s, Z_NO_FLUSH);
    out->resize(out->size() - s.avail_out);
    if (rc == Z_BUF_ERROR && s.avail_in == 0) break;
  }
  inflateEnd(&s);
  return rc == Z_STREAM_END;
}

}  // namespace gpufl::agent
