// CUPTI activity buffers: a bounded pool and a hand-off queue.
//
// CUPTI asks for a buffer on its own thread and returns it full on its own thread; both callbacks
// must be quick, so they only take a buffer from the pool and queue a completed one. The session's
// writer thread pops completed buffers, decodes them and gives them back. When every buffer is in
// use, CUPTI gets none and drops records (counted by CUPTI; see CuptiTracer's stats): memory stays
// bounded.
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
  ActivityBufferPool(size_t buffer_bytes, size_t max_buffers);
  ~ActivityBufferPool();
  ActivityBufferPool(const ActivityBufferPool&) = delete;
  ActivityBufferPool& operator=(const ActivityBufferPool&) = delete;

  // [cupti thread] A free buffer, or nullptr when max_buffers are all in use.
  uint8_t* acquire();
  // [cupti thread] A buffer CUPTI filled (valid_bytes may be 0).
  void complete(uint8_t* data, size_t valid_bytes);
  // [writer thread] Takes every completed buffer, oldest first.
  std::vector<CompletedBuffer> takeCompleted();
  // [writer thread] Returns a decoded buffer to the pool.
  void release(uint8_t* data);

  size_t bufferBytes() const { return buffer_bytes_; }
  uint64_t allocated() const;  // buffers ever allocated (<= max_buffers)
  uint64_t refusals() const;   // times CUPTI asked while every buffer was in use

 private:
  const size_t buffer_bytes_;
  const size_t max_buffers_;
  mutable std::mutex mutex_;
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> all_;
  std::deque<CompletedBuffer> completed_;
  uint64_t refusals_ = 0;
};

}  // namespace gpufl::cuda
