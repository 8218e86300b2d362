#include "log/log_writer.hpp"

#include "core/record_schema.hpp"
#include "log/compressor.hpp"
#include "log/kernel_block.hpp"
#include "log/ndjson_format.hpp"
#include "log/segment_file.hpp"

namespace gpufl::log {
namespace {

// The channel named in record_list.hpp ("all" is not one: session records are written to each).
constexpr Channel channelOf(std::string_view name) {
  if (name == "device") return Channel::Device;
  if (name == "scope") return Channel::Scope;
  if (name == "system") return Channel::System;
  throw "a record written to one channel must name device, scope or system";  // compile-time error
}

// The one LogWriter: files with rotation, or a single stream. Each handler formats straight into
// the buffer of the record's channel (docs/log-format.md's routing table), so a record costs no
// copy and, once the buffers have grown, no allocation. [writer thread]: not thread-safe, as
// LogWriter says.
class NdjsonLogWriter final : public LogWriter {
 public:
  explicit NdjsonLogWriter(const LogWriterOptions& options)
      : options_(options), compressor_(options.zstd_level) {}

  bool openFiles(std::string* error) {
    if (std::string why = checkPrefix(options_.prefix); !why.empty()) {
      *error = why;
      return false;
    }
    for (int c = 0; c < 3; ++c) {
      if (!written(static_cast<Channel>(c))) continue;  // never created
      if (!files_[c].open(options_.prefix, static_cast<Channel>(c), options_.rotate_bytes, error))
        return false;
    }
    if (options_.compress_rotated) {
      for (int c = 0; c < 3; ++c) {
        if (!written(static_cast<Channel>(c))) continue;
        for (std::string& s : plainSegments(options_.prefix, static_cast<Channel>(c)))
          compressor_.submit(std::move(s));
      }
    }
    return true;
  }

  // Stream mode (`gpufl cat`): one ChannelFile for everything, session records once, kernels
  // absolute.
  void attach(std::FILE* stream, std::optional<Channel> only) {
    files_[0].attach(stream);
    stream_mode_ = true;
    only_ = only;
  }

  ~NdjsonLogWriter() override { close(); }

  // Every handler goes to write(): the overloads below for session records (every channel) and
  // kernel events (the delta encoding), the template for the rest, to the channel that
  // record_list.hpp names for their type.
#define GFL_WRITER_HANDLER_(T, type, channel, on) \
  void on(const T& e) override {                  \
    write(e);                                     \
  }
  GFL_RECORDS(GFL_WRITER_HANDLER_)
#undef GFL_WRITER_HANDLER_

  void flush() override {
    if (closed_) return;
    writeKernelBlocks();
    for (int c = 0; c < channelCount(); ++c) {
      if (!files_[c].flush()) lost(static_cast<Channel>(c));
    }
  }

  void finishCompression(std::chrono::milliseconds wait) override {
    compressor_.drain(wait);
  }

  void close() override {
    if (closed_) return;
    writeKernelBlocks();
    if (!stream_mode_) endKernelChains();
    flush();
    for (auto& f : files_) f.close();
    compressor_.drain(options_.close_wait);
    closed_ = true;
  }

  LogWriterStats stats() const override {
    LogWriterStats s;
    s.records = records_;
    s.segments_rotated = rotated_;
    s.segments_compressed = compressor_.completed();
    s.compress_errors = compressor_.errors();
    s.segments_left_plain = compressor_.leftPlain();
    for (const auto& f : files_) {
      s.write_errors += f.errors();
      s.records_dropped += f.recordsDropped();
      s.bytes_dropped += f.bytesDropped();
      if (!f.lastError().empty()) s.last_error = f.lastError();
    }
    s.bytes_written = accepted_bytes_ - s.bytes_dropped;
    if (s.compress_errors && s.last_error.empty()) s.last_error = compressor_.lastError();
    return s;
  }

 private:
  int channelCount() const {
    return stream_mode_ ? 1 : 3;
  }
  // A stream limited to one channel leaves the others' records out (every handler routes through
  // write(), which checks here, so a new record kind is filtered by the channel it is written to).
  bool skipped(Channel c) const {
    return only_ && *only_ != c;
  }
  ChannelFile& file(Channel c) {
    return files_[stream_mode_ ? 0 : static_cast<int>(options_.one_file.value_or(c))];
  }
  // Whether channel `c`'s own file is created (every one, unless options_.one_file names another).
  bool written(Channel c) const {
    return !options_.one_file || *options_.one_file == c;
  }
  // Records of channel `c` go to the file the kernel chain is kept for (the device channel's).
  bool sharesDeviceFile(Channel c) {
    return &file(c) == &file(Channel::Device);
  }

  // The buffer a record of channel `c` is formatted into; commit(c) must follow.
  std::string& line(Channel c) {
    std::string& b = file(c).buffer();
    line_start_ = b.size();
    return b;
  }

  void commit(Channel c) {
    ChannelFile& f = file(c);
    if (closed_) {  // a record after close() is dropped, not written to a closed file
      f.buffer().resize(line_start_);
      return;
    }
    ++records_;
    accepted_bytes_ += f.buffer().size() - line_start_;
    if (!f.needsService()) return;
    if (sharesDeviceFile(c) && !stream_mode_ && f.rotationDue()) endKernelChains();
    ChannelFile::Outcome o = f.service();
    if (o.lost) lost(c);
    if (!o.closed_segment.empty()) {
      ++rotated_;
      // A new segment must decode alone: its first kernel of each session is absolute.
      if (sharesDeviceFile(c)) delta_.reset();
      if (options_.compress_rotated) compressor_.submit(std::move(o.closed_segment));
    }
  }

  template <typename Event>
  void write(const Event& e) {
    constexpr Channel c = channelOf(schema::Schema<Event>::channel);
    if (skipped(c)) return;
    formatRecord(line(c), e);
    commit(c);
  }

  void write(const SessionStart& e) {
    formatSessionStart(line(Channel::Device), e, true);
    commit(Channel::Device);
    if (stream_mode_ || options_.one_file) return;
    formatSessionStart(line(Channel::Scope), e, false);
    commit(Channel::Scope);
    formatSessionStart(line(Channel::System), e, false);
    commit(Channel::System);
  }

  void write(const SessionEnd& e) {
    writeKernelBlocks();  // a session's kernels come before its end
    formatRecord(line(Channel::Device), e);
    commit(Channel::Device);
    if (stream_mode_ || options_.one_file) return;
    formatRecord(line(Channel::Scope), e);
    commit(Channel::Scope);
    formatRecord(line(Channel::System), e);
    commit(Channel::System);
  }

  void write(const KernelEvent& e) {
    if (skipped(Channel::Device)) return;
    if (stream_mode_) {
      formatKernelEventAbsolute(line(Channel::Device), e);
    } else if (options_.kernel_blocks) {
      if (closed_) return;  // dropped, as a line after close() is
      KernelBlockBuilder& b = blockFor(e.sid);
      b.add(e);
      if (b.full()) writeKernelBlock(b);
      return;
    } else {
      formatKernelEvent(line(Channel::Device), e, delta_);
    }
    commit(Channel::Device);
  }

  KernelBlockBuilder& blockFor(const std::string& sid) {
    for (KernelBlockBuilder& b : blocks_)
      if (b.sid() == sid) return b;
    return blocks_.emplace_back(sid);
  }

  // One line for the block's events: they count as records one by one.
  void writeKernelBlock(KernelBlockBuilder& b) {
    if (b.size() == 0) return;
    records_ += b.size() - 1;
    b.appendLine(line(Channel::Device), options_.zstd_level);
    commit(Channel::Device);
  }

  void writeKernelBlocks() {
    for (KernelBlockBuilder& b : blocks_) writeKernelBlock(b);
  }

  // The device file is about to end (rotation, close): where each kernel chain stands, so that a
  // reader can still place the kernels after a line lost since the last absolute record.
  void endKernelChains() {
    std::string& b = file(Channel::Device).buffer();
    const size_t before = b.size();
    delta_.appendChainEnds(b);
    accepted_bytes_ += b.size() - before;
  }

  // Lines were dropped: later kernel differences would be relative to lines no reader will see.
  void lost(Channel c) {
    if (stream_mode_ || sharesDeviceFile(c)) delta_.reset();
  }

  LogWriterOptions options_;
  ChannelFile files_[3];
  KernelDeltaEncoder delta_;                // for the device channel's active file
  std::vector<KernelBlockBuilder> blocks_;  // options_.kernel_blocks: one per session
  SegmentCompressor compressor_;
  bool stream_mode_ = false;
  std::optional<Channel> only_;  // stream mode: just this channel
  bool closed_ = false;
  size_t line_start_ = 0;
  uint64_t records_ = 0;
  uint64_t accepted_bytes_ = 0;
  uint64_t rotated_ = 0;
};

}  // namespace

LogWriter::~LogWriter() = default;

std::unique_ptr<LogWriter> LogWriter::open(const LogWriterOptions& options, std::string* error) {
  auto w = std::make_unique<NdjsonLogWriter>(options);
  std::string why;
  if (!w->openFiles(&why)) {
    if (error) *error = why;
    return nullptr;
  }
  return w;
}

uint64_t compressLeftoverSegments(const std::string& prefix, int zstd_level, std::string* error) {
  if (std::string why = checkPrefix(prefix); !why.empty()) {
    if (error) *error = why;
    return 0;
  }
  uint64_t done = 0;
  for (int c = 0; c < 3; ++c) {
    for (const std::string& s : plainSegments(prefix, static_cast<Channel>(c))) {
      std::string why;
      const CompressResult r = compressSegment(s, s + ".zst", zstd_level, &why);
      if (r == CompressResult::kDone) ++done;
      if (r == CompressResult::kFailed && error) *error = why;
    }
  }
  return done;
}

std::unique_ptr<LogWriter> LogWriter::toStream(std::FILE* stream, std::optional<Channel> only) {
  LogWriterOptions options;
  options.rotate_bytes = 0;
  options.compress_rotated = false;
  auto w = std::make_unique<NdjsonLogWriter>(options);
  w->attach(stream, only);
  return w;
}

}  // namespace gpufl::log
