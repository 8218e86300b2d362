#include "core/arch_limits.hpp"

#include <algorithm>
#include <charconv>

namespace gpufl {
namespace {

constexpr int64_t kKiB = 1024;

// Shared-memory capacities per SM (KiB) that the carveout can select, from the tuning guides:
// Volta: 0-96; Turing: 32 or 64; A100/Orin: up to 164; GA10x/Ada/GB20x: up to 100;
// Hopper/GB10x/Thor: up to 228.
const std::vector<int64_t> kVoltaCarveouts = {0, 8, 16, 32, 64, 96};
const std::vector<int64_t> kTuringCarveouts = {32, 64};
const std::vector<int64_t> kUpTo100 = {0, 8, 16, 32, 64, 100};
const std::vector<int64_t> kUpTo164 = {0, 8, 16, 32, 64, 100, 132, 164};
const std::vector<int64_t> kUpTo228 = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

struct Row {
  int major, minor;
  int max_warps, max_blocks;
  int64_t smem_sm_kib, smem_optin_kib;
  int64_t smem_unit, reserve;
  const std::vector<int64_t>* carveouts_kib;
};

// Registers (64 Ki per SM and per block, 255 per thread, 256-register units per warp, 4
// sub-partitions) and the 1024-thread block are the same for every row and take ArchLimits'
// defaults. The shared-memory allocation unit is 256 B on sm_7x and 128 B from sm_80 on; the driver
// reserves 1 KiB per block from sm_80 on (cudaDeviceProp::reservedSharedMemPerBlock). sm_110
// (Thor, formerly sm_101) has the least documentation; its row follows the CUDA 13 programming
// guide as we read it and limitsFromDevice() overrides it on a real device.
const Row kRows[] = {
    {7, 0, 64, 32, 96, 96, 256, 0, &kVoltaCarveouts},   // V100
    {7, 2, 64, 32, 96, 96, 256, 0, &kVoltaCarveouts},   // Xavier
    {7, 5, 32, 16, 64, 64, 256, 0, &kTuringCarveouts},  // Turing
    {8, 0, 64, 32, 164, 163, 128, kKiB, &kUpTo164},     // A100
    {8, 6, 48, 16, 100, 99, 128, kKiB, &kUpTo100},      // GA10x
    {8, 7, 48, 16, 164, 163, 128, kKiB, &kUpTo164},     // Orin
    {8, 9, 48, 24, 100, 99, 128, kKiB, &kUpTo100},      // Ada
    {9, 0, 64, 32, 228, 227, 128, kKiB, &kUpTo228},     // H100/H200
    {10, 0, 64, 32, 228, 227, 128, kKiB, &kUpTo228},    // B200
    {10, 3, 64, 32, 228, 227, 128, kKiB, &kUpTo228},    // B300
    {11, 0, 48, 24, 228, 227, 128, kKiB, &kUpTo228},    // Thor
    {12, 0, 48, 24, 100, 99, 128, kKiB, &kUpTo100},     // GB20x (RTX 50)
    {12, 1, 48, 24, 100, 99, 128, kKiB, &kUpTo100},     // GB10 (DGX Spark)
};

ArchLimits fromRow(const Row& r) {
  ArchLimits l;
  l.cc_major = r.major;
  l.cc_minor = r.minor;
  l.max_warps_per_sm = r.max_warps;
  l.max_blocks_per_sm = r.max_blocks;
  l.smem_per_sm_bytes = r.smem_sm_kib * kKiB;
  l.smem_per_block_optin_bytes = r.smem_optin_kib * kKiB;
  l.smem_alloc_unit_bytes = r.smem_unit;
  l.smem_reserved_per_block_bytes = r.reserve;
  for (int64_t kib : *r.carveouts_kib) l.smem_carveouts_bytes.push_back(kib * kKiB);
  return l;
}

std::optional<int> parseInt(std::string_view s) {
  int v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::string ArchLimits::archName() const {
  return "sm_" + std::to_string(cc_major * 10 + cc_minor);
}

std::optional<ArchLimits> archLimits(int cc_major, int cc_minor) {
  for (const Row& r : kRows)
    if (r.major == cc_major && r.minor == cc_minor) return fromRow(r);
  return std::nullopt;
}

std::optional<std::pair<int, int>> parseArchName(const std::string& name) {
  std::string_view s = name;
  for (std::string_view prefix : {"sm_", "compute_", "sm", "SM_", "SM"}) {
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  }
  if (auto dot = s.find('.'); dot != std::string_view::npos) {  // "9.0"
    auto major = parseInt(s.substr(0, dot));
    auto minor = parseInt(s.substr(dot + 1));
    if (!major || !minor || *minor > 9) return std::nullopt;
    return std::make_pair(*major, *minor);
  }
  // Architecture-specific suffixes ("sm_90a", "sm_100f") name the same limits.
  if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) s.remove_suffix(1);
  auto number = parseInt(s);
  if (!number || s.size() < 2 || s.size() > 3) return std::nullopt;
  return std::make_pair(*number / 10, *number % 10);
}

std::optional<ArchLimits> archLimitsFromName(const std::string& name) {
  auto cc = parseArchName(name);
  if (!cc) return std::nullopt;
  return archLimits(cc->first, cc->second);
}

std::vector<std::string> knownArchNames() {
  std::vector<std::string> names;
  for (const Row& r : kRows) names.push_back(fromRow(r).archName());
  return names;
}

ArchLimits limitsFromDevice(const DeviceInfo& d) {
  ArchLimits l;
  if (auto exact = archLimits(d.cc_major, d.cc_minor)) {
    l = *exact;
  } else {
    // Newest row of the same major version, else the newest row overall.
    const Row* best = &kRows[std::size(kRows) - 1];
    for (const Row& r : kRows)
      if (r.major == d.cc_major && r.minor <= d.cc_minor) best = &r;
    l = fromRow(*best);
  }
  l.cc_major = d.cc_major;
  l.cc_minor = d.cc_minor;
  if (d.warp_size > 0) l.warp_size = d.warp_size;
  if (d.max_threads_per_sm > 0) l.max_warps_per_sm = d.max_threads_per_sm / l.warp_size;
  if (d.max_threads_per_block > 0) l.max_threads_per_block = d.max_threads_per_block;
  if (d.max_blocks_per_sm > 0) l.max_blocks_per_sm = d.max_blocks_per_sm;
  if (d.regs_per_sm > 0) l.regs_per_sm = d.regs_per_sm;
  if (d.regs_per_block > 0) l.max_regs_per_block = d.regs_per_block;
  if (d.smem_per_block_bytes > 0) l.smem_per_block_bytes = d.smem_per_block_bytes;
  if (d.smem_per_block_optin_bytes > 0) l.smem_per_block_optin_bytes = d.smem_per_block_optin_bytes;
  if (d.smem_per_sm_bytes > 0) {
    l.smem_per_sm_bytes = d.smem_per_sm_bytes;
    l.smem_reserved_per_block_bytes = d.smem_reserved_per_block_bytes;
    // A device whose capacity differs from the table's keeps only the carveouts it can hold.
    std::erase_if(l.smem_carveouts_bytes, [&](int64_t c) { return c > l.smem_per_sm_bytes; });
    if (!l.smem_carveouts_bytes.empty() && l.smem_carveouts_bytes.back() != l.smem_per_sm_bytes)
      l.smem_carveouts_bytes.push_back(l.smem_per_sm_bytes);
  }
  if (l.smem_per_block_optin_bytes == 0) l.smem_per_block_optin_bytes = l.smem_per_block_bytes;
  return l;
}

std::optional<int64_t> roundUpToCarveout(const ArchLimits& limits, int64_t bytes) {
  if (bytes > limits.smem_per_sm_bytes) return std::nullopt;
  if (limits.smem_carveouts_bytes.empty()) return bytes;
  auto it = std::lower_bound(limits.smem_carveouts_bytes.begin(), limits.smem_carveouts_bytes.end(),
                             bytes);
  if (it == limits.smem_carveouts_bytes.end()) return std::nullopt;
  return *it;
}

}  // namespace gpufl
