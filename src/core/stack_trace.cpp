#include "core/stack_trace.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <cstdio>

#include "core/demangle.hpp"

namespace gpufl {
namespace {

uint64_t hashAddresses(void* const* frames, int n) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the address words
  for (int i = 0; i < n; ++i) {
    h ^= reinterpret_cast<uintptr_t>(frames[i]);
    h *= 1099511628211ull;
  }
  return h ^ static_cast<uint64_t>(n);
}

const char* baseName(const char* path) {
  const char* slash = path;
  for (const char* p = path; *p; ++p)
    if (*p == '/') slash = p + 1;
  return slash;
}

}  // namespace

uint32_t StackTable::capture(int skip) {
  void* frames[kMaxFrames + 8];
  int n = backtrace(frames, kMaxFrames + skip);
  if (n <= skip) return 0;
  void* const* first = frames + skip;
  int count = n - skip;
  uint64_t h = hashAddresses(first, count);
  std::lock_guard lock(mutex_);
  if (auto it = ids_.find(h); it != ids_.end()) return it->second;
  if (ids_.size() >= kMaxStacks) {
    ++overflowed_;
    return 0;
  }
  uint32_t id = next_id_++;
  ids_.emplace(h, id);
  pending_.emplace_back(id, std::vector<void*>(first, first + count));
  return id;
}

std::vector<std::pair<uint32_t, std::vector<std::string>>> StackTable::takeNew() {
  std::vector<std::pair<uint32_t, std::vector<void*>>> raw;
  {
    std::lock_guard lock(mutex_);
    raw.swap(pending_);
  }
  std::vector<std::pair<uint32_t, std::vector<std::string>>> out;
  out.reserve(raw.size());
  for (auto& [id, addresses] : raw) {
    std::vector<std::string> frames;
    frames.reserve(addresses.size());
    for (void* a : addresses) frames.push_back(symbolizeFrame(a));
    out.emplace_back(id, std::move(frames));
  }
  return out;
}

uint64_t StackTable::overflowed() const {
  std::lock_guard lock(mutex_);
  return overflowed_;
}

std::string symbolizeFrame(const void* address) {
  char buf[64];
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
    std::snprintf(buf, sizeof buf, "%p", address);
    return buf;
  }
  std::string out;
  if (info.dli_sname != nullptr) {
    out = demangle(info.dli_sname);
    auto offset = static_cast<const char*>(address) - static_cast<const char*>(info.dli_saddr);
    std::snprintf(buf, sizeof buf, "+0x%tx", offset);
  } else {
    out = "??";
    auto offset = static_cast<const char*>(address) - static_cast<const char*>(info.dli_fbase);
    std::snprintf(buf, sizeof buf, "+0x%tx", offset);
  }
  out += buf;
  out += " (";
  out += baseName(info.dli_fname);
  out += ")";
  return out;
}

}  // namespace gpufl
