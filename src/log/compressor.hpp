// Compresses closed log segments with zstd on one background thread, so the writer thread only
// renames files.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace gpufl::log {

enum class CompressResult {
  kDone,
  kSkipped,    // another process is compressing `src`, or already did (src gone, dst there)
  kCancelled,  // *cancel was set: `src` is left as it was
  kFailed,     // *error says why; `src` is left as it was
};

// Compresses `src` into `dst` (zstd frame with checksum at `level`): writes `dst`.tmp, syncs it,
// renames it to `dst` atomically, then deletes `src`. A reader therefore sees either the plain
// segment or the complete .zst (briefly both, which it must tolerate by preferring one).
// Holds flock(LOCK_EX) on `src` throughout, so two processes never compress one segment at once;
// a `dst`.tmp found while holding it is stale (its writer died) and is replaced. `src` and the .tmp
// are never followed if they are symbolic links; the .tmp is created exclusively, with the
// source's mode (0640 at most) less the umask's bits.
// `cancel` (may be null) is polled between 256 KiB chunks of input.
CompressResult compressSegment(const std::string& src, const std::string& dst, int level,
                               std::string* error, const std::atomic<bool>* cancel = nullptr);

class SegmentCompressor {
 public:
  explicit SegmentCompressor(int level) : level_(level) {}
  SegmentCompressor(const SegmentCompressor&) = delete;
  SegmentCompressor& operator=(const SegmentCompressor&) = delete;
  ~SegmentCompressor() { drain(std::chrono::milliseconds::max()); }

  // Queues `<segment>` for compression into `<segment>.zst`; starts the thread on first use.
  void submit(std::string segment);
  // Compresses what is queued for at most `wait`, then abandons the rest: the segment in progress
  // and those behind it stay plain (for the next writer on the prefix, see recoverSegments). Stops
  // the thread; submit() may start it again.
  void drain(std::chrono::milliseconds wait);

  uint64_t completed() const { return completed_.load(); }
  uint64_t errors() const { return errors_.load(); }
  uint64_t leftPlain() const { return left_plain_.load(); }  // abandoned by drain
  std::string lastError() const;

 private:
  void run();  // [compressor thread]

  const int level_;
  mutable std::mutex mu_;
  std::condition_variable cv_;       // work or stop for the thread
  std::condition_variable idle_cv_;  // the thread has finished
  std::deque<std::string> queue_;
  bool stopping_ = false;
  bool finished_ = false;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> left_plain_{0};
  std::string last_error_;  // guarded by mu_
};

}  // namespace gpufl::log
