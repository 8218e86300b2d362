// CUPTI activity records -> core events. Pure functions of one record: no CUPTI call, no allocation
// beyond the strings of the result, so tests feed them records built in host memory.
//
// Record versions (CUDA 13.0's cupti_activity.h, where CUPTI fills the newest version of each
// kind):
//   CUPTI_ACTIVITY_KIND_KERNEL / CONCURRENT_KERNEL -> CUpti_ActivityKernel10
//   CUPTI_ACTIVITY_KIND_MEMCPY                     -> CUpti_ActivityMemcpy6
//   CUPTI_ACTIVITY_KIND_MEMCPY2 (peer to peer)     -> CUpti_ActivityMemcpyPtoP4
//   CUPTI_ACTIVITY_KIND_MEMSET                     -> CUpti_ActivityMemset4
//   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION            -> CUpti_ActivitySynchronization2
//   CUPTI_ACTIVITY_KIND_MEMORY2                    -> CUpti_ActivityMemory4
// Timestamps are copied as CUPTI gives them: on the session clock once CUPTI has our timestamp
// callback.
//
// [writer thread]
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <variant>

#include "core/events.hpp"

namespace gpufl::cuda {

// A kernel record split into what identifies its launch shape and what is per execution.
struct DecodedKernel {
  // Launch-shape key, as KernelCatalog::intern wants it: name (mangled), device, context, grid,
  // block, num_regs, static/dyn shared bytes, local bytes per thread. id, demangled, occupancy and
  // waves are left for the catalog.
  KernelDef shape;
  // Shared-memory carveout the function requested
  // (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent), or -1 when it requested none.
  // Part of the shape: it changes occupancy.
  int carveout_percent = -1;
  // Per execution: def_id is 0 until the shape is interned; scope_path/stack_id come from the
  // launch callback.
  KernelEvent event;

  // Extra launch facts, not part of the key.
  uint8_t cache_config_requested = 0;  // CUfunc_cache
  uint8_t cache_config_executed = 0;
  uint32_t shared_executed_bytes = 0;  // shared memory per SM the driver configured for this launch
  bool shared_optin = false;  // opted into more than 48 KiB dynamic shared memory per block
  Dim3 cluster;               // thread-block cluster (compute capability 9.0+), (1,1,1) otherwise
  uint64_t graph_node_id = 0;
  bool has_timestamps = true;  // false when CUPTI could not time the kernel (start == end == 0)
};

// Kernel record (KERNEL or CONCURRENT_KERNEL).
DecodedKernel decodeKernel(const CUpti_ActivityKernel10& record);
// Copy record: kind from copyKind, src_kind/dst_kind from the memory kinds.
MemcpyEvent decodeMemcpy(const CUpti_ActivityMemcpy6& record);
// Peer-to-peer copy record: device is the record's device (where the copy runs).
MemcpyEvent decodeMemcpyPtoP(const CUpti_ActivityMemcpyPtoP4& record);
// Memset record: is_memset, value, dst_kind from memoryKind.
MemcpyEvent decodeMemset(const CUpti_ActivityMemset4& record);
// Synchronization record (the host waiting): stream 0 when the record names none.
SyncEvent decodeSync(const CUpti_ActivitySynchronization2& record);
// Allocation/release record; anything but a release counts as an allocation.
MemoryEvent decodeMemory(const CUpti_ActivityMemory4& record);

// CUpti_ActivityMemcpyKind -> CopyKind. Arrays count as device memory (HtoA is HtoD, AtoA/AtoD/DtoA
// are DtoD).
CopyKind copyKindFromCupti(uint32_t copy_kind);
// CUpti_ActivityMemoryKind -> "pageable", "pinned", "device" (also arrays and static device
// memory), "managed", or "" when unknown.
const char* memoryKindName(uint32_t memory_kind);

// One record of any kind we decode; std::monostate for kinds we do not.
using DecodedActivity =
    std::variant<std::monostate, DecodedKernel, MemcpyEvent, SyncEvent, MemoryEvent>;
DecodedActivity decodeActivity(const CUpti_Activity& record);

}  // namespace gpufl::cuda
