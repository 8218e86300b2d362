// Theoretical occupancy of one launch shape: the number that
// cudaOccupancyMaxActiveBlocksPerMultiprocessor returns, with the per-resource breakdown GPU Flight
// writes to kernel_def records. docs/occupancy.md has the rules and their check on an H200.
//
// Model (the CUDA occupancy model of the toolkit's cuda_occupancy.h and occupancy calculator):
//  - warps: warps/block = ceil(threads / warp_size); blocks = max_warps_per_sm / warps per block.
//  - registers: regs/warp = round_up(regs/thread * warp_size, reg_alloc_unit); each sub-partition
//    holds floor((regs_per_sm / sub_partitions) / regs per warp) warps; blocks = sub_partitions *
//    that / warps per block. A block over max_regs_per_block (its warps rounded up to a multiple
//    of the sub-partitions, as the hardware checks) or a thread over max_regs_per_thread: 0 blocks.
//  - shared memory: per block = round_up(static + dynamic + driver reserve, smem_alloc_unit); over
//    the opt-in limit plus reserve: 0 blocks. The capacity per SM comes from the carveout (below).
//  - blocks: the architecture's max_blocks_per_sm.
// max_active_blocks is the minimum; occupancy = max_active_blocks * warps/block / max_warps_per_sm.
//
// Carveout (carveout_percent: the function's cudaFuncAttributePreferredSharedMemoryCarveout):
//  - -1 (cudaSharedmemCarveoutDefault): the full smem_per_sm_bytes is assumed, as the occupancy
//    API reports for a function without a preference. At launch the driver may configure a
//    smaller carveout that keeps as many blocks resident (OccupancyDetail::min_carveout_bytes).
//  - 0..100: that percent of smem_per_sm_bytes, rounded up to the next valid carveout. When one
//    block needs more, the preference (only a hint) gives way to the smallest carveout holding it.
//
// Per-resource occupancy: *_occupancy = min(1, blocks that resource alone allows * warps/block /
// max warps). Limiting resource: the one allowing the fewest blocks. Ties go to the fixed SM
// capacities first, in the order warps, blocks, registers, shared_mem: when warps tie with
// registers, fewer registers would not raise occupancy, so "warps" is what must change. A kernel
// at full occupancy therefore reads "warps".
#pragma once

#include <climits>
#include <cstdint>
#include <string>

#include "core/arch_limits.hpp"
#include "core/events.hpp"

namespace gpufl {

struct OccupancyInput {
  int block_threads = 0;  // threads per block (x*y*z)
  int regs_per_thread = 0;
  int64_t static_smem_bytes = 0;
  int64_t dyn_smem_bytes = 0;
  int carveout_percent = -1;  // -1 = default (no preference), else 0..100
};

inline constexpr int kUnlimitedBlocks = INT_MAX;

// Everything the calculation found, for the CLI breakdown and for comparison with the CUDA
// occupancy API and Nsight Compute's launch__occupancy_limit_{registers,shared_mem,warps,blocks}
// (the blocks_by_* fields).
struct OccupancyDetail {
  Occupancy occupancy;  // what kernel_def records carry
  bool valid = false;   // false: the input was malformed (see error), all counts are 0
  std::string error;
  int warps_per_block = 0;
  int max_warps_per_sm = 0;
  int active_warps = 0;          // max_active_blocks * warps_per_block
  int blocks_by_registers = 0;   // kUnlimitedBlocks when the kernel uses no registers
  int blocks_by_shared_mem = 0;  // kUnlimitedBlocks when a block needs no shared memory
  int blocks_by_warps = 0;
  int blocks_by_blocks = 0;
  unsigned limiting_mask = 0;  // bit (1 << LimitingResource) for every resource at the minimum
  int regs_per_warp_allocated = 0;
  int regs_per_block_allocated = 0;
  // static + dynamic + reserve, rounded up to the allocation unit
  int64_t smem_per_block_allocated = 0;
  int64_t smem_per_sm_bytes = 0;   // the shared-memory capacity the smem limit was computed with
  int64_t min_carveout_bytes = 0;  // smallest carveout that still holds max_active_blocks blocks
  std::string zero_reason;         // why no block fits, when max_active_blocks == 0
};

// The detailed calculation. Never throws; malformed input (threads <= 0, negative sizes, carveout
// outside -1..100, limits without warps) gives valid == false.
OccupancyDetail computeOccupancyDetail(const ArchLimits& limits, const OccupancyInput& input);

// The record form, as kernel_def carries it.
Occupancy computeOccupancy(const ArchLimits& limits, int block_threads, int regs_per_thread,
                           int64_t static_smem_bytes, int64_t dyn_smem_bytes,
                           int carveout_percent = -1);

}  // namespace gpufl
