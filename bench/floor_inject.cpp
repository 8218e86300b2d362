// The floor for overhead measurements: a CUDA injection library (CUDA_INJECTION64_PATH) that
// enables exactly the CUPTI activity kinds and launch callbacks gpufl's tracer enables
// (src/cuda/trace_config.hpp) and does nothing with them: empty callbacks, buffers handed straight
// back. Whatever gpufl costs above this is gpufl's own.
// FLOOR_TIMESTAMP_CALLBACK=1 adds one thing gpufl also does, a CUPTI timestamp callback on
// CLOCK_MONOTONIC, to measure what that alone costs.
#include <cupti.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "cuda/trace_config.hpp"

namespace {

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = gpufl::cuda::kActivityBufferBytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI onBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
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
}

}  // namespace

extern "C" int InitializeInjection() {
  using namespace gpufl::cuda;
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, onCallback, nullptr) != CUPTI_SUCCESS) return 0;
  forEachTracedCallback([&](CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    cuptiEnableCallback(1, subscriber, domain, cbid);
  });
  if (const char* ts = std::getenv("FLOOR_TIMESTAMP_CALLBACK"); ts != nullptr && *ts == '1')
    cuptiActivityRegisterTimestampCallback(monotonicClock);
  cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  for (auto kind : kTraceActivityKinds) cuptiActivityEnable(kind);
  std::atexit(flushAtExit);
  std::fprintf(stderr, "[floor] bare CUPTI tracing enabled\n");
  return 1;
}
