// CUPTI activity buffers: a bounded pool and a hand-off queue.
//
// CUPTI asks for a buffer on its own thread and returns it full on its own thread; both callbacks
// must be quick, so they only take a buffer from the pool and queue a completed one. The session's
// writer thread pops completed buffers, decodes them and gives them back. When every buffer is in
// use, CUPTI gets none and drops records (counted by CUPTI; see CuptiTracer's stats): memory stays
// bounded.
//
// Memory follows the need, not its peak: buffers are mapped (mmap) one at a time as CUPTI asks,
// and a decoded buffer beyond `keep_free` idle ones is unmapped at once, so a burst that filled the
// pool (the writer behind a storm of graph replays) gives its memory back to the system when the
// writer has caught up, rather than holding the burst's high-water mark until the process exits.
// Measured by held()/pending()/peak(), which the health record reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace gpufl::cuda {

struct CompletedBuffer {
  uint8_t* data = nullptr;
  size_t valid_bytes = 0;
};

class ActivityBufferPool {
 public:
  static constexpr size_t kDefaultKeepFree = 4;

  ActivityBufferPool(size_t buffer_bytes, size_t max_buffers, size_t keep_free = kDefaultKeepFree);
  ~ActivityBufferPool();
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // [cupti thread] A free buffer, or nullptr when max_buffers are all in use.
  uint8_t* acquire();
  // [cupti thread] A buffer CUPTI filled (valid_bytes may be 0). Returns how many completed
  // buffers now wait for the writer.
  size_t complete(uint8_t* data, size_t valid_bytes);
  // [writer thread] Takes every completed buffer, oldest first.
  std::vector<CompletedBuffer> takeCompleted();
  // [writer thread] Returns a decoded buffer to the pool (or to the system, beyond keep_free idle).
  void release(uint8_t* data);

  size_t bufferBytes() const { return buffer_bytes_; }
  uint64_t allocated()
      const;  // buffers ever mapped (a buffer unmapped and mapped again counts twice)
  uint64_t refusals() const;  // times CUPTI asked while every buffer was in use
  size_t held() const;        // buffers mapped now: at CUPTI, waiting for the writer, or idle
  size_t pending() const;     // completed, waiting for the writer
  size_t peak() const;        // the most mapped at once

 private:
  uint8_t* map();
  void unmap(uint8_t* b);

  const size_t buffer_bytes_;
  const size_t max_buffers_;
  const size_t keep_free_;
  mutable std::mutex mutex_;
  std::vector<uint8_t*> free_;
  size_t held_ = 0, peak_ = 0;
  uint64_t mapped_total_ = 0;
  std::deque<CompletedBuffer> completed_;
  uint64_t refusals_ = 0;
  // Every buffer mapped now (the pool unmaps what is left, at CUPTI or not, when destroyed: CUPTI
  // is unsubscribed by then).
  std::vector<uint8_t*> all_;
};

}  // namespace gpufl::cuda
