#include "cuda/activity_decode.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace gpufl::cuda {
namespace {

// Records as CUPTI lays them out in its buffers, built in host memory.
template <typename T>
T zeroed() {
  T r;
  std::memset(&r, 0, sizeof r);
  return r;
}

CUpti_ActivityKernel10 matmulKernel() {
  auto r = zeroed<CUpti_ActivityKernel10>();
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.name = "_Z13matmul_kernelPKfS0_Pfiii";
  r.deviceId = 1;
  r.contextId = 7;
  r.streamId = 13;
  r.gridX = 16, r.gridY = 32, r.gridZ = 1;
  r.blockX = 32, r.blockY = 8, r.blockZ = 1;
  r.registersPerThread = 40;
  r.staticSharedMemory = 8192;
  r.dynamicSharedMemory = 1024;
  r.localMemoryPerThread = 16;
  r.correlationId = 4242;
  r.start = 1'000'000'500;
  r.end = 1'000'090'500;
  r.cacheConfig.config.requested = 1;  // CU_FUNC_CACHE_PREFER_SHARED
  r.cacheConfig.config.executed = 1;
  r.sharedMemoryExecuted = 102400;
  r.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_DEFAULT;
  r.clusterX = 0, r.clusterY = 0, r.clusterZ = 0;  // no cluster
  return r;
}

TEST(ActivityDecode, Kernel) {
  DecodedKernel k = decodeKernel(matmulKernel());
  EXPECT_EQ(k.shape.name, "_Z13matmul_kernelPKfS0_Pfiii");
  EXPECT_EQ(k.shape.id, 0u);
  EXPECT_EQ(k.shape.demangled, "");  // the catalog fills it
  EXPECT_EQ(k.shape.device, 1u);
  EXPECT_EQ(k.shape.context, 7u);
  EXPECT_EQ(k.shape.grid, (Dim3{16, 32, 1}));
  EXPECT_EQ(k.shape.block, (Dim3{32, 8, 1}));
  EXPECT_EQ(k.shape.num_regs, 40);
  EXPECT_EQ(k.shape.static_shared_bytes, 8192);
  EXPECT_EQ(k.shape.dyn_shared_bytes, 1024);
  EXPECT_EQ(k.shape.local_bytes, 16);
  EXPECT_FALSE(k.shape.occupancy.has_value());
  EXPECT_EQ(k.carveout_percent, -1);

  EXPECT_EQ(k.event.def_id, 0u);
  EXPECT_EQ(k.event.stream, 13u);
  EXPECT_EQ(k.event.correlation_id, 4242u);
  EXPECT_EQ(k.event.start_ns, 1'000'000'500);
  EXPECT_EQ(k.event.end_ns, 1'000'090'500);
  EXPECT_EQ(k.event.scope_path, 0u);
  EXPECT_EQ(k.event.graph_id, 0u);
  EXPECT_FALSE(k.event.instrumented);

  EXPECT_EQ(k.cache_config_requested, 1);
  EXPECT_EQ(k.cache_config_executed, 1);
  EXPECT_EQ(k.shared_executed_bytes, 102400u);
  EXPECT_FALSE(k.shared_optin);
  EXPECT_EQ(k.cluster, (Dim3{1, 1, 1}));
  EXPECT_TRUE(k.has_timestamps);
}

TEST(ActivityDecode, KernelCarveoutClusterGraphAndMissingTimestamps) {
  auto r = matmulKernel();
  r.isSharedMemoryCarveoutRequested = 1;
  r.sharedMemoryCarveoutRequested = 50;
  r.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_OPTIN;
  r.clusterX = 2, r.clusterY = 1, r.clusterZ = 1;
  r.graphId = 3;
  r.graphNodeId = 99;
  r.start = r.end = 0;
  r.name = nullptr;
  DecodedKernel k = decodeKernel(r);
  EXPECT_EQ(k.carveout_percent, 50);
  EXPECT_TRUE(k.shared_optin);
  EXPECT_EQ(k.cluster, (Dim3{2, 1, 1}));
  EXPECT_EQ(k.event.graph_id, 3u);
  EXPECT_EQ(k.graph_node_id, 99u);
  EXPECT_FALSE(k.has_timestamps);
  EXPECT_EQ(k.shape.name, "");
}

TEST(ActivityDecode, KernelShapeIsIndependentOfExecution) {
  auto a = matmulKernel();
  auto b = matmulKernel();
  b.correlationId = 4243, b.start += 100000, b.end += 100000, b.streamId = 14;
  DecodedKernel ka = decodeKernel(a), kb = decodeKernel(b);
  EXPECT_EQ(ka.shape.name, kb.shape.name);
  EXPECT_EQ(ka.shape.grid, kb.shape.grid);
  EXPECT_EQ(ka.shape.block, kb.shape.block);
  EXPECT_EQ(ka.shape.context, kb.shape.context);
  EXPECT_NE(ka.event.correlation_id, kb.event.correlation_id);
}

TEST(ActivityDecode, Memcpy) {
  auto r = zeroed<CUpti_ActivityMemcpy6>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  r.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.bytes = 1 << 20;
  r.start = 500;
  r.end = 1500;
  r.deviceId = 0;
  r.streamId = 7;
  r.correlationId = 11;
  r.copyCount = 1;
  MemcpyEvent m = decodeMemcpy(r);
  EXPECT_FALSE(m.is_memset);
  EXPECT_EQ(m.kind, CopyKind::HtoD);
  EXPECT_EQ(m.bytes, 1u << 20);
  EXPECT_EQ(m.stream, 7u);
  EXPECT_EQ(m.correlation_id, 11u);
  EXPECT_EQ(m.start_ns, 500);
  EXPECT_EQ(m.end_ns, 1500);
  EXPECT_EQ(m.src_kind, "pageable");
  EXPECT_EQ(m.dst_kind, "device");
  EXPECT_FALSE(m.value.has_value());
}

TEST(ActivityDecode, CopyKinds) {
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), CopyKind::Unknown);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD), CopyKind::HtoD);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH), CopyKind::DtoH);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA), CopyKind::HtoD);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH), CopyKind::DtoH);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_ATOA), CopyKind::DtoD);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD), CopyKind::DtoD);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA), CopyKind::DtoD);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD), CopyKind::DtoD);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH), CopyKind::HtoH);
  EXPECT_EQ(copyKindFromCupti(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), CopyKind::PtoP);
  EXPECT_EQ(copyKindFromCupti(200), CopyKind::Unknown);
}

TEST(ActivityDecode, MemoryKinds) {
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN), "");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE), "pageable");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), "pinned");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE), "device");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY), "device");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED), "managed");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC), "device");
  EXPECT_STREQ(memoryKindName(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC), "managed");
}

TEST(ActivityDecode, PeerToPeerCopy) {
  auto r = zeroed<CUpti_ActivityMemcpyPtoP4>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  r.srcKind = r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.bytes = 4096;
  r.deviceId = 1;
  r.srcDeviceId = 0;
  r.dstDeviceId = 1;
  r.correlationId = 5;
  r.start = 10, r.end = 20;
  MemcpyEvent m = decodeMemcpyPtoP(r);
  EXPECT_EQ(m.kind, CopyKind::PtoP);
  EXPECT_EQ(m.device, 1u);
  EXPECT_EQ(m.bytes, 4096u);
  EXPECT_EQ(m.src_kind, "device");
  EXPECT_EQ(m.dst_kind, "device");
}

TEST(ActivityDecode, Memset) {
  auto r = zeroed<CUpti_ActivityMemset4>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.value = 0xab;
  r.bytes = 256;
  r.start = 100, r.end = 160;
  r.deviceId = 2;
  r.streamId = 3;
  r.correlationId = 77;
  r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  MemcpyEvent m = decodeMemset(r);
  EXPECT_TRUE(m.is_memset);
  EXPECT_EQ(m.kind, CopyKind::Unknown);
  EXPECT_EQ(m.value, 0xabu);
  EXPECT_EQ(m.bytes, 256u);
  EXPECT_EQ(m.device, 2u);
  EXPECT_EQ(m.stream, 3u);
  EXPECT_EQ(m.correlation_id, 77u);
  EXPECT_EQ(m.end_ns - m.start_ns, 60);
  EXPECT_EQ(m.src_kind, "");
  EXPECT_EQ(m.dst_kind, "device");
}

TEST(ActivityDecode, Synchronization) {
  auto r = zeroed<CUpti_ActivitySynchronization2>();
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  r.start = 1000, r.end = 4500;
  r.correlationId = 41;
  r.streamId = 7;
  SyncEvent s = decodeSync(r);
  EXPECT_EQ(s.kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(s.stream, 7u);
  EXPECT_EQ(s.correlation_id, 41u);
  EXPECT_EQ(s.start_ns, 1000);
  EXPECT_EQ(s.end_ns, 4500);
  r.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  r.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;  // no stream for a context-wide wait
  s = decodeSync(r);
  EXPECT_EQ(s.kind, SyncKind::ContextSynchronize);
  EXPECT_EQ(s.stream, 0u);
  r.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  EXPECT_EQ(decodeSync(r).kind, SyncKind::EventSynchronize);
  r.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  EXPECT_EQ(decodeSync(r).kind, SyncKind::StreamWaitEvent);
  r.type = static_cast<CUpti_ActivitySynchronizationType>(99);
  EXPECT_EQ(decodeSync(r).kind, SyncKind::Unknown);
  EXPECT_TRUE(std::holds_alternative<SyncEvent>(
      decodeActivity(reinterpret_cast<const CUpti_Activity&>(r))));
}

TEST(ActivityDecode, MemoryAllocationAndRelease) {
  auto r = zeroed<CUpti_ActivityMemory4>();
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  r.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  r.bytes = 1 << 20;
  r.address = 0x7f0000000000;
  r.timestamp = 500;
  r.deviceId = 1;
  r.streamId = 9;  // not async: not a stream-ordered allocation
  r.correlationId = 3;
  MemoryEvent m = decodeMemory(r);
  EXPECT_FALSE(m.is_free);
  EXPECT_EQ(m.memory_kind, "device");
  EXPECT_EQ(m.bytes, 1u << 20);
  EXPECT_EQ(m.address, 0x7f0000000000u);
  EXPECT_EQ(m.ts_ns, 500);
  EXPECT_EQ(m.device, 1u);
  EXPECT_EQ(m.stream, 0u);
  EXPECT_EQ(m.correlation_id, 3u);
  r.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  r.isAsync = 1;
  m = decodeMemory(r);
  EXPECT_TRUE(m.is_free);
  EXPECT_EQ(m.stream, 9u);
  EXPECT_TRUE(std::holds_alternative<MemoryEvent>(
      decodeActivity(reinterpret_cast<const CUpti_Activity&>(r))));
}

TEST(ActivityDecode, DispatchOnKind) {
  // A buffer holding records back to back, read through the generic header as CUPTI's iterator
  // would.
  alignas(8) unsigned char buffer[sizeof(CUpti_ActivityKernel10) + sizeof(CUpti_ActivityMemset4)];
  auto kernel = matmulKernel();
  auto memset = zeroed<CUpti_ActivityMemset4>();
  memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  memset.bytes = 8;
  std::memcpy(buffer, &kernel, sizeof kernel);
  std::memcpy(buffer + sizeof kernel, &memset, sizeof memset);

  auto first = decodeActivity(*reinterpret_cast<const CUpti_Activity*>(buffer));
  ASSERT_TRUE(std::holds_alternative<DecodedKernel>(first));
  EXPECT_EQ(std::get<DecodedKernel>(first).event.correlation_id, 4242u);
  auto second = decodeActivity(*reinterpret_cast<const CUpti_Activity*>(buffer + sizeof kernel));
  ASSERT_TRUE(std::holds_alternative<MemcpyEvent>(second));
  EXPECT_TRUE(std::get<MemcpyEvent>(second).is_memset);

  auto plain_kernel = matmulKernel();
  plain_kernel.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  EXPECT_TRUE(std::holds_alternative<DecodedKernel>(
      decodeActivity(reinterpret_cast<const CUpti_Activity&>(plain_kernel))));

  auto other = zeroed<CUpti_ActivityMemset4>();
  other.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  EXPECT_TRUE(std::holds_alternative<std::monostate>(
      decodeActivity(reinterpret_cast<const CUpti_Activity&>(other))));
}

}  // namespace
}  // namespace gpufl::cuda
