#include "cuda/activity_decode.hpp"

namespace gpufl::cuda {
namespace {

uint32_t dimension(int32_t v) {
  return v > 0 ? static_cast<uint32_t>(v) : 1u;
}

// CUPTI timestamps are uint64; ours are int64 on the same monotonic clock (well below 2^63 ns).
int64_t ns(uint64_t t) {
  return static_cast<int64_t>(t);
}

}  // namespace

CopyKind copyKindFromCupti(uint32_t copy_kind) {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return CopyKind::HtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return CopyKind::DtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return CopyKind::DtoD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return CopyKind::HtoH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return CopyKind::PtoP;
    default:
      return CopyKind::Unknown;
  }
}

const char* memoryKindName(uint32_t memory_kind) {
  switch (memory_kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
      return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
      return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
      return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
      return "managed";
    default:
      return "";
  }
}

DecodedKernel decodeKernel(const CUpti_ActivityKernel10& r) {
  DecodedKernel k;
  KernelDef& s = k.shape;
  s.name = r.name != nullptr ? r.name : "";
  s.device = r.deviceId;
  s.context = r.contextId;
  s.grid = {dimension(r.gridX), dimension(r.gridY), dimension(r.gridZ)};
  s.block = {dimension(r.blockX), dimension(r.blockY), dimension(r.blockZ)};
  s.num_regs = r.registersPerThread;
  s.static_shared_bytes = r.staticSharedMemory;
  s.dyn_shared_bytes = r.dynamicSharedMemory;
  s.local_bytes = r.localMemoryPerThread;
  k.carveout_percent = r.isSharedMemoryCarveoutRequested ? r.sharedMemoryCarveoutRequested : -1;

  KernelEvent& e = k.event;
  e.stream = r.streamId;
  e.correlation_id = r.correlationId;
  e.start_ns = ns(r.start);
  e.end_ns = ns(r.end);
  e.graph_id = r.graphId;

  k.cache_config_requested = r.cacheConfig.config.requested;
  k.cache_config_executed = r.cacheConfig.config.executed;
  k.shared_executed_bytes = r.sharedMemoryExecuted;
  k.shared_optin = r.shmemLimitConfig == CUPTI_FUNC_SHMEM_LIMIT_OPTIN;
  k.cluster = {r.clusterX > 0 ? r.clusterX : 1u, r.clusterY > 0 ? r.clusterY : 1u,
               r.clusterZ > 0 ? r.clusterZ : 1u};
  k.graph_node_id = r.graphNodeId;
  k.has_timestamps = r.start != 0 || r.end != 0;
  return k;
}

MemcpyEvent decodeMemcpy(const CUpti_ActivityMemcpy6& r) {
  MemcpyEvent m;
  m.kind = copyKindFromCupti(r.copyKind);
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.start_ns = ns(r.start);
  m.end_ns = ns(r.end);
  m.src_kind = memoryKindName(r.srcKind);
  m.dst_kind = memoryKindName(r.dstKind);
  return m;
}

MemcpyEvent decodeMemcpyPtoP(const CUpti_ActivityMemcpyPtoP4& r) {
  MemcpyEvent m;
  m.kind = CopyKind::PtoP;
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.start_ns = ns(r.start);
  m.end_ns = ns(r.end);
  m.src_kind = memoryKindName(r.srcKind);
  m.dst_kind = memoryKindName(r.dstKind);
  return m;
}

MemcpyEvent decodeMemset(const CUpti_ActivityMemset4& r) {
  MemcpyEvent m;
  m.is_memset = true;
  m.kind = CopyKind::Unknown;
  m.bytes = r.bytes;
  m.device = r.deviceId;
  m.stream = r.streamId;
  m.correlation_id = r.correlationId;
  m.start_ns = ns(r.start);
  m.end_ns = ns(r.end);
  m.dst_kind = memoryKindName(r.memoryKind);
  m.value = r.value;
  return m;
}

SyncEvent decodeSync(const CUpti_ActivitySynchronization2& r) {
  SyncEvent s;
  switch (r.type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      s.kind = SyncKind::EventSynchronize;
      break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      s.kind = SyncKind::StreamWaitEvent;
      break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      s.kind = SyncKind::StreamSynchronize;
      break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      s.kind = SyncKind::ContextSynchronize;
      break;
    default:
      s.kind = SyncKind::Unknown;
      break;
  }
  s.stream = r.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : r.streamId;
  s.correlation_id = r.correlationId;
  s.start_ns = static_cast<int64_t>(r.start);
  s.end_ns = static_cast<int64_t>(r.end);
  return s;
}

MemoryEvent decodeMemory(const CUpti_ActivityMemory4& r) {
  MemoryEvent m;
  m.is_free = r.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  m.memory_kind = memoryKindName(r.memoryKind);
  m.bytes = r.bytes;
  m.address = r.address;
  m.device = r.deviceId;
  m.stream = r.isAsync ? r.streamId : 0;
  m.correlation_id = r.correlationId;
  m.ts_ns = static_cast<int64_t>(r.timestamp);
  return m;
}

DecodedActivity decodeActivity(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return decodeKernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return decodeMemcpy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return decodeMemcpyPtoP(reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(record));
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return decodeMemset(reinterpret_cast<const CUpti_ActivityMemset4&>(record));
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return decodeSync(reinterpret_cast<const CUpti_ActivitySynchronization2&>(record));
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return decodeMemory(reinterpret_cast<const CUpti_ActivityMemory4&>(record));
    default:
      return std::monostate{};
  }
}

}  // namespace gpufl::cuda
