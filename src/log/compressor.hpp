// Compresses closed log segments with zstd on one background thread, so the writer thread only
// renames files.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace gpufl::log {

// Compresses `src` into `dst` (zstd frame with checksum at `level`): writes `dst`.tmp, syncs it,
// renames it to `dst` atomically, then deletes `src`. A reader therefore sees either the plain
// segment or the complete .zst (briefly both, which it must tolerate by preferring one). False,
// with *error, leaves `src` untouched.
bool compressSegment(const std::string& src, const std::string& dst, int level, std::string* error);

class SegmentCompressor {
 public:
  explicit SegmentCompressor(int level) : level_(level) {}
  SegmentCompressor(const SegmentCompressor&) = delete;
  SegmentCompressor& operator=(const SegmentCompressor&) = delete;
  ~SegmentCompressor() { drain(); }

  // Queues `<segment>` for compression into `<segment>.zst`; starts the thread on first use.
  void submit(std::string segment);
  // Waits until every queued segment is done and stops the thread. submit() may start it again.
  void drain();

  uint64_t completed() const { return completed_.load(); }
  uint64_t errors() const { return errors_.load(); }
  std::string lastError() const;

 private:
  void run();  // [compressor thread]

  const int level_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool stopping_ = false;
  std::thread thread_;
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> errors_{0};
  std::string last_error_;  // guarded by mu_
};

}  // namespace gpufl::log
