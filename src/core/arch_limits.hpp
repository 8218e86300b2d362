// Per-SM resource limits of an NVIDIA GPU architecture: what the occupancy calculator divides by.
//
// The table (arch_limits.cpp) holds the documented values of the CUDA C++ Programming Guide's
// "Technical Specifications per Compute Capability" and the architecture tuning guides
// (shared-memory capacities), plus the allocation rules of the CUDA occupancy model
// (register/shared-memory allocation units, the per-block driver reserve). limitsFromDevice()
// prefers a device's own properties and takes from the table only what they lack.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"

namespace gpufl {

struct ArchLimits {
  int cc_major = 0, cc_minor = 0;
  int warp_size = 32;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 1024;
  int regs_per_sm = 65536;
  int max_regs_per_block = 65536;
  int max_regs_per_thread = 255;
  // Registers are allocated per warp: regs/thread * warp_size rounded up to reg_alloc_unit.
  int reg_alloc_unit = 256;
  // The register file is split evenly across the SM's sub-partitions (one per warp scheduler); a
  // warp's registers come from one sub-partition, so warps/SM by registers = sub_partitions *
  // (file/sub_partitions / warp).
  int reg_sub_partitions = 4;
  int64_t smem_per_sm_bytes = 0;             // largest carveout
  int64_t smem_per_block_bytes = 48 * 1024;  // per-block limit without opt-in
  // per-block limit with cudaFuncAttributeMaxDynamicSharedMemorySize
  int64_t smem_per_block_optin_bytes = 0;
  int64_t smem_alloc_unit_bytes = 128;  // a block's shared memory is rounded up to this
  // taken by the driver from every block (1 KiB from sm_80 on)
  int64_t smem_reserved_per_block_bytes = 0;
  // The shared-memory capacities an SM can be configured with (ascending, bytes). Empty: only
  // smem_per_sm_bytes.
  std::vector<int64_t> smem_carveouts_bytes;

  // "sm_90", "sm_120".
  std::string archName() const;
};

// The documented limits of one compute capability; nullopt when it is not in the table.
std::optional<ArchLimits> archLimits(int cc_major, int cc_minor);

// Parses "sm_90", "sm_90a", "compute_90", "90", "9.0"; nullopt when malformed or not in the table.
std::optional<ArchLimits> archLimitsFromName(const std::string& name);

// Parses the compute capability of an arch name without looking it up ("sm_86" -> {8, 6}).
std::optional<std::pair<int, int>> parseArchName(const std::string& name);

// Names of every architecture in the table, oldest first ("sm_70", ...).
std::vector<std::string> knownArchNames();

// Limits of a real device: every field the device record has (> 0) wins; the rest comes from the
// table entry of its compute capability, or, for a capability newer than the table, from the newest
// entry of the same major version (or the newest entry overall). The reserve is taken from the
// device whenever the record carries its shared-memory sizes, because 0 is a legitimate reserve
// (sm_7x).
ArchLimits limitsFromDevice(const DeviceInfo& device);

// Rounds `bytes` up to the next valid carveout of `limits`; nullopt when it exceeds the largest.
// When the table has no carveout list, any size up to smem_per_sm_bytes is returned as is.
std::optional<int64_t> roundUpToCarveout(const ArchLimits& limits, int64_t bytes);

}  // namespace gpufl
