#include "core/occupancy.hpp"

#include <algorithm>
#include <string>

namespace gpufl {
namespace {

int64_t roundUp(int64_t value, int64_t unit) {
  return unit <= 0 ? value : (value + unit - 1) / unit * unit;
}

double resourceOccupancy(int blocks, int warps_per_block, int max_warps) {
  if (blocks == kUnlimitedBlocks) return 1.0;
  double v = static_cast<double>(blocks) * warps_per_block / max_warps;
  return std::min(1.0, v);
}

void addReason(std::string& reasons, const std::string& reason) {
  if (!reasons.empty()) reasons += "; ";
  reasons += reason;
}

std::string inputError(const ArchLimits& l, const OccupancyInput& in) {
  if (l.warp_size <= 0 || l.max_warps_per_sm <= 0 || l.max_blocks_per_sm <= 0)
    return "architecture limits are missing (warps or blocks per SM)";
  if (in.block_threads <= 0) return "threads per block must be positive";
  if (in.regs_per_thread < 0) return "registers per thread must not be negative";
  if (in.static_smem_bytes < 0 || in.dyn_smem_bytes < 0)
    return "shared memory must not be negative";
  if (in.carveout_percent < -1 || in.carveout_percent > 100)
    return "carveout must be -1 (default) or 0..100";
  return {};
}

// Blocks allowed by the register file alone; fills the allocation fields.
int blocksByRegisters(const ArchLimits& l, const OccupancyInput& in, OccupancyDetail& d,
                      std::string& why) {
  int64_t per_warp = roundUp(int64_t{in.regs_per_thread} * l.warp_size, l.reg_alloc_unit);
  int64_t per_block = per_warp * d.warps_per_block;
  int subs = std::max(1, l.reg_sub_partitions);
  int64_t per_block_hw = per_warp * roundUp(d.warps_per_block, subs);
  d.regs_per_warp_allocated = static_cast<int>(per_warp);
  d.regs_per_block_allocated = static_cast<int>(std::min<int64_t>(per_block, INT_MAX));
  if (in.regs_per_thread > l.max_regs_per_thread) {
    addReason(why, std::to_string(in.regs_per_thread) +
                       " registers per thread exceed the limit of " +
                       std::to_string(l.max_regs_per_thread));
    return 0;
  }
  if (per_warp == 0) return kUnlimitedBlocks;
  if (per_block > l.max_regs_per_block || per_block_hw > l.max_regs_per_block) {
    addReason(why, "a block needs " + std::to_string(per_block_hw) + " registers, more than the " +
                       std::to_string(l.max_regs_per_block) + " a block may have");
    return 0;
  }
  int64_t warps_per_sub = (l.regs_per_sm / subs) / per_warp;
  int64_t blocks = warps_per_sub * subs / d.warps_per_block;
  if (blocks == 0)
    addReason(why, "the register file holds " + std::to_string(warps_per_sub * subs) +
                       " warps of " + std::to_string(per_warp) +
                       " registers, fewer than one block's " + std::to_string(d.warps_per_block));
  return static_cast<int>(std::min<int64_t>(blocks, kUnlimitedBlocks));
}

// Blocks allowed by shared memory alone; fills the allocation and carveout fields.
int blocksBySharedMem(const ArchLimits& l, const OccupancyInput& in, OccupancyDetail& d,
                      std::string& why) {
  int64_t total = in.static_smem_bytes + in.dyn_smem_bytes + l.smem_reserved_per_block_bytes;
  int64_t alloc = roundUp(total, l.smem_alloc_unit_bytes);
  d.smem_per_block_allocated = alloc;
  int64_t optin =
      l.smem_per_block_optin_bytes > 0 ? l.smem_per_block_optin_bytes : l.smem_per_block_bytes;
  if (alloc > optin + l.smem_reserved_per_block_bytes) {
    addReason(why,
              "a block needs " + std::to_string(alloc) + " bytes of shared memory, more than the " +
                  std::to_string(optin + l.smem_reserved_per_block_bytes) + " a block may have");
    d.smem_per_sm_bytes = l.smem_per_sm_bytes;
    return 0;
  }
  int64_t per_sm = l.smem_per_sm_bytes;
  if (in.carveout_percent >= 0) {
    int64_t preferred = int64_t{in.carveout_percent} * l.smem_per_sm_bytes / 100;
    per_sm = roundUpToCarveout(l, preferred).value_or(l.smem_per_sm_bytes);
    // The preference is a hint: a block that does not fit gets the smallest carveout that holds it.
    if (per_sm < alloc) per_sm = roundUpToCarveout(l, alloc).value_or(l.smem_per_sm_bytes);
  }
  d.smem_per_sm_bytes = per_sm;
  if (alloc == 0) return kUnlimitedBlocks;
  int64_t blocks = per_sm / alloc;
  if (blocks == 0)
    addReason(why, "a block needs " + std::to_string(alloc) +
                       " bytes of shared memory, more than the SM's " + std::to_string(per_sm));
  return static_cast<int>(std::min<int64_t>(blocks, kUnlimitedBlocks));
}

}  // namespace

OccupancyDetail computeOccupancyDetail(const ArchLimits& l, const OccupancyInput& in) {
  OccupancyDetail d;
  d.error = inputError(l, in);
  if (!d.error.empty()) return d;
  d.valid = true;
  d.max_warps_per_sm = l.max_warps_per_sm;
  d.warps_per_block = static_cast<int>(roundUp(in.block_threads, l.warp_size) / l.warp_size);

  std::string why;
  if (in.block_threads > l.max_threads_per_block) {
    d.blocks_by_warps = 0;
    addReason(why, "a block of " + std::to_string(in.block_threads) +
                       " threads exceeds the limit of " + std::to_string(l.max_threads_per_block));
  } else {
    d.blocks_by_warps = l.max_warps_per_sm / d.warps_per_block;
    if (d.blocks_by_warps == 0)
      addReason(why, "a block of " + std::to_string(d.warps_per_block) +
                         " warps exceeds the SM's " + std::to_string(l.max_warps_per_sm));
  }
  d.blocks_by_blocks = l.max_blocks_per_sm;
  d.blocks_by_registers = blocksByRegisters(l, in, d, why);
  d.blocks_by_shared_mem = blocksBySharedMem(l, in, d, why);

  // Tie order: fixed SM capacities first (see the header).
  const std::pair<LimitingResource, int> order[] = {
      {LimitingResource::Warps, d.blocks_by_warps},
      {LimitingResource::Blocks, d.blocks_by_blocks},
      {LimitingResource::Registers, d.blocks_by_registers},
      {LimitingResource::SharedMem, d.blocks_by_shared_mem}};
  int best = kUnlimitedBlocks;
  for (const auto& [resource, blocks] : order) best = std::min(best, blocks);
  for (const auto& [resource, blocks] : order) {
    if (blocks != best) continue;
    if (d.limiting_mask == 0) d.occupancy.limiting = resource;
    d.limiting_mask |= 1u << static_cast<unsigned>(resource);
  }

  Occupancy& o = d.occupancy;
  o.max_active_blocks = best;
  d.active_warps = best * d.warps_per_block;
  o.occupancy = static_cast<double>(d.active_warps) / l.max_warps_per_sm;
  o.warp_occupancy = resourceOccupancy(d.blocks_by_warps, d.warps_per_block, l.max_warps_per_sm);
  o.block_occupancy = resourceOccupancy(d.blocks_by_blocks, d.warps_per_block, l.max_warps_per_sm);
  o.reg_occupancy = resourceOccupancy(d.blocks_by_registers, d.warps_per_block, l.max_warps_per_sm);
  o.smem_occupancy =
      resourceOccupancy(d.blocks_by_shared_mem, d.warps_per_block, l.max_warps_per_sm);

  if (best > 0) {
    int64_t needed = int64_t{best} * d.smem_per_block_allocated;
    d.min_carveout_bytes = roundUpToCarveout(l, needed).value_or(d.smem_per_sm_bytes);
  } else {
    d.zero_reason = why;
  }
  return d;
}

Occupancy computeOccupancy(const ArchLimits& limits, int block_threads, int regs_per_thread,
                           int64_t static_smem_bytes, int64_t dyn_smem_bytes,
                           int carveout_percent) {
  OccupancyInput in;
  in.block_threads = block_threads;
  in.regs_per_thread = regs_per_thread;
  in.static_smem_bytes = static_smem_bytes;
  in.dyn_smem_bytes = dyn_smem_bytes;
  in.carveout_percent = carveout_percent;
  return computeOccupancyDetail(limits, in).occupancy;
}

}  // namespace gpufl
