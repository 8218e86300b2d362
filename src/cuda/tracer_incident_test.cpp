// The tracer's side of the flight recorder, fed host-built CUpti_CallbackData as CUPTI would pass
// them (no GPU needed): launches enter the in-flight set with their stream and scope, a successful
// synchronize proves earlier launches finished, a sticky error at an API exit and an allocation
// that runs out of memory become incidents, a failed launch leaves the in-flight set, and a
// carveout set on a function reaches its launches.
#include <cupti.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/flight_recorder.hpp"
#include "core/scope_stack.hpp"
#include "core/thread_buffer.hpp"
#include "cuda/cupti_tracer.hpp"

namespace gpufl::cuda {
namespace {

using Kind = CuptiTracer::ApiKind;
constexpr auto kRt = CUPTI_CB_DOMAIN_RUNTIME_API;

// cudaLaunchKernel's parameters (generated_cuda_runtime_api_meta.h), with the stream last.
struct LaunchParams {
  const void* func = nullptr;
  unsigned dims[6] = {1, 1, 1, 1, 1, 1};
  void** args = nullptr;
  size_t smem = 0;
  void* stream = nullptr;
};

class TracerIncidents : public ::testing::Test {
 protected:
  void SetUp() override {
    core::ThreadBufferRegistry::global().attach();
    core::setRecordingGeneration(0x7ffe0000u);
    tracer_.setFlightRecorder(&flight_, [this] { ++wakes_; });
    cb_.context = reinterpret_cast<CUcontext>(0xc0);
  }
  void TearDown() override {
    core::setRecordingGeneration(0);
    core::ThreadBufferRegistry::global().drainAll(
        [](const core::Record&, const core::ThreadInfo&) {});
    core::ThreadBufferRegistry::global().detach();
  }
  // One call, enter then exit, returning `code`.
  void call(Kind kind, CUpti_CallbackId cbid, const char* api, const void* params, int code = 0,
            const char* symbol = nullptr) {
    cb_.correlationId = next_corr_++;
    cb_.functionName = api;
    cb_.symbolName = symbol;
    cb_.functionParams = params;
    cb_.functionReturnValue = nullptr;
    cb_.callbackSite = CUPTI_API_ENTER;
    tracer_.onApi(&cb_, true, kind, kRt, cbid);
    cb_.functionReturnValue = &code;
    cb_.callbackSite = CUPTI_API_EXIT;
    tracer_.onApi(&cb_, false, kind, kRt, cbid);
  }
  void launch(const char* kernel, void* stream, const void* func = nullptr) {
    LaunchParams p;
    p.func = func;
    p.stream = stream;
    call(Kind::KernelLaunch, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
         &p, 0, kernel);
  }

  core::FlightRecorder flight_;
  CuptiTracer tracer_;
  CUpti_CallbackData cb_{};
  uint32_t next_corr_ = 1;
  int wakes_ = 0;
};

TEST_F(TracerIncidents, AStickyErrorAtASynchronizeNamesTheLaunchesSinceTheLastGoodOne) {
  void* stream = reinterpret_cast<void*>(0x5);
  launch("_Z4goodv", stream);
  launch("_Z4goodv", stream);
  call(Kind::Sync, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize",
       nullptr);
  const uint64_t scope = core::scopeBegin("bad_step");
  launch("_Z3badPi", stream);
  core::scopeEnd(scope);
  call(Kind::Sync, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize",
       nullptr, 700);
  EXPECT_EQ(wakes_, 1);
  std::vector<Incident> incidents = flight_.takeIncidents("s");
  ASSERT_EQ(incidents.size(), 1u);
  const Incident& i = incidents[0];
  EXPECT_EQ(i.kind, "cuda_error");
  EXPECT_EQ(i.api, "cudaDeviceSynchronize");
  EXPECT_EQ(i.error_name, "cudaErrorIllegalAddress");
  // No record arrived, but the good synchronize proved the first two finished: one in flight.
  EXPECT_EQ(i.in_flight_count, 1u);
  std::vector<std::string> suspects;
  for (const InFlightLaunch& l : i.in_flight) {
    if (!l.suspect) continue;
    suspects.push_back(l.name);
    EXPECT_EQ(l.stream_handle, 0x5u);
    EXPECT_NE(l.scope_path, 0u);
  }
  EXPECT_EQ(suspects, std::vector<std::string>{"_Z3badPi"});
  // Every later call fails the same way: one incident.
  call(Kind::Sync, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize",
       nullptr, 700);
  EXPECT_TRUE(flight_.takeIncidents("s").empty());
}

TEST_F(TracerIncidents, AnAllocationOutOfMemoryIsAnIncidentWithItsSize) {
  struct {
    void** ptr = nullptr;
    size_t size = 3ull << 40;
  } params;
  call(Kind::Alloc, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", &params, 2);
  std::vector<Incident> incidents = flight_.takeIncidents("s");
  ASSERT_EQ(incidents.size(), 1u);
  EXPECT_EQ(incidents[0].kind, "out_of_memory");
  EXPECT_EQ(incidents[0].requested_bytes, 3ull << 40);
  EXPECT_NE(incidents[0].reason.find("cudaMalloc of"), std::string::npos) << incidents[0].reason;
  // An error that is neither sticky nor out of memory is the program's business.
  call(Kind::Alloc, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", &params, 1);
  call(Kind::Free, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree", &params, 2);
  EXPECT_TRUE(flight_.takeIncidents("s").empty());
}

TEST_F(TracerIncidents, AFailedLaunchIsNotInFlightAndAWaitIsSeen) {
  LaunchParams p;
  call(Kind::KernelLaunch, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", &p,
       1, "_Z7invalidv");  // invalid configuration: no record will come
  core::LaunchSlot pending[4];
  EXPECT_EQ(flight_.launches().pendingLaunches(pending, 4), 0u);
  // Inside a synchronize the thread is waiting; the watchdog sees it once it is old enough.
  cb_.correlationId = next_corr_++;
  cb_.functionName = "cudaStreamSynchronize";
  void* stream = reinterpret_cast<void*>(0x9);
  cb_.functionParams = &stream;
  cb_.callbackSite = CUPTI_API_ENTER;
  tracer_.onApi(&cb_, true, Kind::Sync, kRt, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
  flight_.startWatchdog(
      1, false, [] { return int64_t{0}; }, nullptr);
  flight_.stopWatchdog();
  ASSERT_TRUE(flight_.checkHang(core::coarseMonotonicNs() + 1'000'000'000));
  const Incident i = flight_.takeIncidents("s")[0];
  ASSERT_EQ(i.blocked.size(), 1u);
  EXPECT_EQ(i.blocked[0].api, "cudaStreamSynchronize");
  EXPECT_EQ(i.blocked[0].stream_handle, 0x9u);
}

// cudaFuncSetAttribute's and cuFuncSetAttribute's parameters (generated meta headers), and
// cuLaunchKernel's first member.
struct RtFuncAttribute {
  const void* func;
  int attr;  // cudaFuncAttributePreferredSharedMemoryCarveout = 9
  int value;
};
struct DrvFuncAttribute {
  CUfunction f;
  int attr;  // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
  int value;
};
struct DrvLaunch {
  CUfunction f;
  unsigned dims[7] = {1, 1, 1, 1, 1, 1, 0};
  void* stream = nullptr;
};

// The runtime's call names the host stub; a program (or runtime) that reaches only the driver's
// names the CUfunction, seen again in the runtime launch's nested driver launch.
TEST_F(TracerIncidents, ACarveoutSetOnAFunctionReachesItsLaunchesByStubOrByCUfunction) {
  static int stub_a, stub_b;
  const auto cufunction_b = reinterpret_cast<CUfunction>(0xf00b);
  RtFuncAttribute rt{&stub_a, 9, 25};
  call(Kind::FuncAttribute, CUPTI_RUNTIME_TRACE_CBID_cudaFuncSetAttribute_v9000,
       "cudaFuncSetAttribute", &rt);
  launch("_Z1av", nullptr, &stub_a);
  EXPECT_EQ(tracer_.requestedCarveout(next_corr_ - 1), 25);

  // Only the driver's call seen (inside a runtime call CUPTI did not report), keyed by CUfunction.
  DrvFuncAttribute drv{cufunction_b, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50};
  int ok = 0;
  cb_.functionParams = &drv;
  cb_.functionReturnValue = &ok;
  tracer_.onNestedDriverCall(&cb_, false, Kind::FuncAttribute,
                             CUPTI_DRIVER_TRACE_CBID_cuFuncSetAttribute, 0);
  launch("_Z1bv", nullptr, &stub_b);  // the stub is not known: nothing yet
  const uint32_t corr_b = next_corr_ - 1;
  EXPECT_EQ(tracer_.requestedCarveout(corr_b), -1);
  DrvLaunch nested{cufunction_b};
  cb_.functionParams = &nested;
  tracer_.onNestedDriverCall(&cb_, true, Kind::KernelLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                             corr_b);
  EXPECT_EQ(tracer_.requestedCarveout(corr_b), 50);
}

}  // namespace
}  // namespace gpufl::cuda
