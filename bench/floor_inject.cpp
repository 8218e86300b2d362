// The floor for overhead measurements: a CUDA injection library (CUDA_INJECTION64_PATH) that
// enables exactly the CUPTI activity kinds and launch callbacks gpufl's tracer enables
// (src/cuda/trace_config.hpp) and does nothing with them: empty callbacks, buffers handed straight
// back. Whatever gpufl costs above this is gpufl's own.
// FLOOR_TIMESTAMP_CALLBACK=1 adds one thing gpufl also does, a CUPTI timestamp callback on
// CLOCK_MONOTONIC, to measure what that alone costs.
// FLOOR_COUNT_RECORDS=1 walks each buffer before handing it back and prints, at exit, how many
// kernel records CUPTI delivered (with and without times), how many it dropped, and the most
// buffers out at once: what CUPTI itself delivers for a workload (the soak compares it with
// gpufl's log; tests/gpu/soak). A few ns per record, on CUPTI's thread.
#include <cupti.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda/trace_config.hpp"

namespace {

bool g_count = false;
std::atomic<uint64_t> g_kernels{0}, g_untimed{0}, g_other{0}, g_dropped{0};
std::atomic<int64_t> g_out{0}, g_peak_out{0};

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = gpufl::cuda::kActivityBufferBytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
  const int64_t out = g_out.fetch_add(1) + 1;
  for (int64_t peak = g_peak_out.load();
       out > peak && !g_peak_out.compare_exchange_weak(peak, out);) {
  }
}

void CUPTIAPI onBufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t,
                                size_t valid) {
  if (g_count && buffer != nullptr) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        ++(k->start == 0 && k->end == 0 ? g_untimed : g_kernels);
      } else {
        ++g_other;
      }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
      g_dropped += dropped;
  }
  if (buffer != nullptr) g_out.fetch_sub(1);
  std::free(buffer);
}

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

uint64_t CUPTIAPI monotonicClock() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void flushAtExit() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (g_count)
    std::fprintf(stderr,
                 "[floor] records: %llu kernels with times, %llu without, %llu other, %llu dropped "
                 "by CUPTI; at most %lld buffers of %zu bytes out at once\n",
                 static_cast<unsigned long long>(g_kernels.load()),
                 static_cast<unsigned long long>(g_untimed.load()),
                 static_cast<unsigned long long>(g_other.load()),
                 static_cast<unsigned long long>(g_dropped.load()),
                 static_cast<long long>(g_peak_out.load()), gpufl::cuda::kActivityBufferBytes);
}

}  // namespace

extern "C" int InitializeInjection() {
  using namespace gpufl::cuda;
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, onCallback, nullptr) != CUPTI_SUCCESS) return 0;
  forEachTracedCallback([&](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    cuptiEnableCallback(1, subscriber, domain, cbid);
  });
  if (const char* count = std::getenv("FLOOR_COUNT_RECORDS"); count != nullptr && *count == '1')
    g_count = true;
  if (const char* ts = std::getenv("FLOOR_TIMESTAMP_CALLBACK"); ts != nullptr && *ts == '1')
    cuptiActivityRegisterTimestampCallback(monotonicClock);
  cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  for (auto kind : kTraceActivityKinds) cuptiActivityEnable(kind);
  std::atexit(flushAtExit);
  std::fprintf(stderr, "[floor] bare CUPTI tracing enabled\n");
  return 1;
}
