// The exact duration samples of many kernel groups, in one append-only log (8 bytes a sample).
//
// With 100,000 kernel names of ten launches each, a vector per group cost a heap block, a cache
// miss and a malloc per few launches; appending to one log touches memory in order. finish() pulls
// each group's samples together (a counting sort by group) when the report is built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace gpufl::report {

class GroupSampleLog {
 public:
  static constexpr uint32_t kMaxGroup = (uint32_t{1} << 31) - 1;  // group ids 0 .. kMaxGroup

  // `ns` >= 0; group <= kMaxGroup.
  void add(uint32_t group, int64_t ns, bool instrumented);
  size_t size() const { return size_; }

  // Every group's samples, grouped: group g's are
  // samples[offsets[g] .. offsets[g + 1]), in log order, each encoded as ns, or as ~ns (< 0) when
  // instrumented. `counts[g]` must be the number of samples added for g.
  struct ByGroup {
    // Not zeroed first: a page is touched only when samples land in it, while takeByGroup frees
    // the log's pages behind it.
    std::unique_ptr<int64_t[]> data;
    std::span<int64_t> samples;
    std::vector<size_t> offsets;  // counts.size() + 1 entries
  };
  ByGroup byGroup(std::span<const uint32_t> counts) const;
  // The same, emptying the log as it goes: each chunk is freed once copied, so that the log and
  // its copy are not held together (past the sample budget, tens of MB each).
  ByGroup takeByGroup(std::span<const uint32_t> counts);

  // Moves a group's instrumented samples (encoded < 0) behind its others and decodes them; returns
  // how many are not instrumented.
  static size_t splitInstrumented(std::span<int64_t> samples);

 private:
  struct Entry {
    uint32_t group_flag;  // group | kInstrumented
    uint32_t ns;          // kBig: the value is in big_
  };
  static constexpr uint32_t kInstrumented = uint32_t{1} << 31;
  static constexpr uint32_t kBig = UINT32_MAX;
  static constexpr size_t kChunk = size_t{1} << 16;  // entries; chunks never move or double
  // Chunks are mapped pages of their own, so that freeing one gives its memory back at once (a
  // freed malloc block may stay resident in the heap), while takeByGroup copies the log.
  struct Unmap {
    void operator()(Entry* chunk) const;
  };
  std::vector<std::unique_ptr<Entry[], Unmap>> chunks_;
  size_t size_ = 0;
  std::vector<std::pair<size_t, int64_t>> big_;  // (position, ns) of samples >= kBig ns, in order
  // `chunk_read(c)` (when set) is called once chunk c has been copied.
  ByGroup sortByGroup(std::span<const uint32_t> counts,
                      const std::function<void(size_t)>& chunk_read) const;
};

}  // namespace gpufl::report
