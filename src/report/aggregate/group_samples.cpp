#include "report/aggregate/group_samples.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace gpufl::report {

namespace {
constexpr size_t kChunkBytes = (size_t{1} << 16) * 8;
}  // namespace

void GroupSampleLog::Unmap::operator()(Entry* chunk) const {
  munmap(chunk, kChunkBytes);
}

void GroupSampleLog::add(uint32_t group, int64_t ns, bool instrumented) {
  static_assert(sizeof(Entry) * kChunk == kChunkBytes);
  if (size_ % kChunk == 0) {
    void* pages =
        mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) throw std::bad_alloc();
    chunks_.emplace_back(static_cast<Entry*>(pages));
  }
  Entry& e = chunks_.back()[size_ % kChunk];
  e.group_flag = group | (instrumented ? kInstrumented : 0);
  if (static_cast<uint64_t>(ns) >= kBig) {
    e.ns = kBig;
    big_.emplace_back(size_, ns);
  } else {
    e.ns = static_cast<uint32_t>(ns);
  }
  ++size_;
}

GroupSampleLog::ByGroup GroupSampleLog::byGroup(std::span<const uint32_t> counts) const {
  return sortByGroup(counts, {});
}

GroupSampleLog::ByGroup GroupSampleLog::takeByGroup(std::span<const uint32_t> counts) {
  ByGroup out = sortByGroup(counts, [this](size_t c) { chunks_[c].reset(); });
  *this = GroupSampleLog{};
  return out;
}

GroupSampleLog::ByGroup GroupSampleLog::sortByGroup(
    std::span<const uint32_t> counts, const std::function<void(size_t)>& chunk_read) const {
  ByGroup out;
  out.offsets.resize(counts.size() + 1);
  size_t at = 0;
  for (size_t g = 0; g < counts.size(); ++g) {
    out.offsets[g] = at;
    at += counts[g];
  }
  out.offsets[counts.size()] = at;
  out.data = std::make_unique_for_overwrite<int64_t[]>(at);
  out.samples = std::span<int64_t>(out.data.get(), at);
  std::vector<size_t> next(out.offsets.begin(), out.offsets.end() - 1);
  auto big = big_.begin();
  for (size_t i = 0; i < size_; ++i) {
    const Entry& e = chunks_[i / kChunk][i % kChunk];
    int64_t ns = e.ns;
    if (e.ns == kBig) ns = (big++)->second;  // big_ is in log order
    const uint32_t group = e.group_flag & ~kInstrumented;
    out.samples[next[group]++] = (e.group_flag & kInstrumented) ? ~ns : ns;
    if (chunk_read && (i + 1) % kChunk == 0) chunk_read(i / kChunk);
  }
  return out;
}

size_t GroupSampleLog::splitInstrumented(std::span<int64_t> samples) {
  const auto clean_end =
      std::partition(samples.begin(), samples.end(), [](int64_t v) { return v >= 0; });
  for (auto it = clean_end; it != samples.end(); ++it) *it = ~*it;
  return static_cast<size_t>(clean_end - samples.begin());
}

}  // namespace gpufl::report
