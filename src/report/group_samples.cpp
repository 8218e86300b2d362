#include "report/group_samples.hpp"

#include <algorithm>

namespace gpufl::report {

void GroupSampleLog::add(uint32_t group, int64_t ns, bool instrumented) {
  if (size_ % kChunk == 0) chunks_.push_back(std::make_unique_for_overwrite<Entry[]>(kChunk));
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
  out.samples.resize(at);
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
