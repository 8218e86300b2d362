#include "cuda/deep_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cuda/cupti_loader.hpp"

namespace gpufl::cuda {
namespace {

TEST(DeepSupport, CuptiErrorNamesCallCodeAndMessage) {
  if (!cuptiLibrary().loaded()) GTEST_SKIP() << cuptiLibrary().error;
  const std::string text = cuptiError("cuptiPCSamplingEnable", CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  EXPECT_EQ(text.rfind("cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (", 0), 0u)
      << text;
  EXPECT_NE(text.find("privileges"), std::string::npos) << text;
  EXPECT_TRUE(isPrivilegeError(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES));
  EXPECT_TRUE(isPrivilegeError(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES));
  EXPECT_FALSE(isPrivilegeError(CUPTI_ERROR_UNKNOWN));
}

TEST(DeepSupport, ParamsCarryTheirSize) {
  struct WithStructSize {
    size_t structSize;
    void* pPriv;
    int x;
  };
  struct WithSize {
    size_t size;
    int x;
  };
  EXPECT_EQ(cuptiParams<WithStructSize>(24).structSize, 24u);
  EXPECT_EQ(cuptiParams<WithStructSize>(24).x, 0);
  EXPECT_EQ(cuptiParams<WithSize>(16).size, 16u);
}

TEST(LaunchScheduler, FirstNLaunchesGetBoth) {
  for (uint64_t n = 1; n <= 5; ++n) {
    EXPECT_EQ(LaunchScheduler::rule(n, 5, LaunchScheduler::Mode::Both), DeepData::Both);
  }
  EXPECT_EQ(LaunchScheduler::rule(6, 5, LaunchScheduler::Mode::Both), DeepData::None);
  EXPECT_EQ(LaunchScheduler::rule(1, 0, LaunchScheduler::Mode::Both), DeepData::None);
}

TEST(LaunchScheduler, AlternateBothFirstThenOddSassEvenPcSampling) {
  using M = LaunchScheduler::Mode;
  EXPECT_EQ(LaunchScheduler::rule(1, 5, M::Alternate), DeepData::Both);  // launched once: both
  EXPECT_EQ(LaunchScheduler::rule(2, 5, M::Alternate), DeepData::PcSampling);
  EXPECT_EQ(LaunchScheduler::rule(3, 5, M::Alternate), DeepData::Sass);
  EXPECT_EQ(LaunchScheduler::rule(4, 5, M::Alternate), DeepData::PcSampling);
  EXPECT_EQ(LaunchScheduler::rule(5, 5, M::Alternate), DeepData::Sass);
  EXPECT_EQ(LaunchScheduler::rule(6, 5, M::Alternate), DeepData::None);
}

TEST(LaunchScheduler, CountsPerFunctionAndAnswersEachLaunchOnce) {
  LaunchScheduler s(2, LaunchScheduler::Mode::Both);
  EXPECT_EQ(s.decide(10, "a"), DeepData::Both);
  EXPECT_EQ(s.decide(10, "a"), DeepData::Both);  // the second engine asking about launch 10
  EXPECT_EQ(s.launches("a"), 1u);
  EXPECT_FALSE(s.sassDone("a"));
  EXPECT_EQ(s.decide(11, "b"), DeepData::Both);
  EXPECT_EQ(s.decide(12, "a"), DeepData::Both);
  EXPECT_TRUE(s.sassDone("a"));
  EXPECT_EQ(s.decide(13, "a"), DeepData::None);
  EXPECT_EQ(s.launches("a"), 3u);
  EXPECT_FALSE(s.sassDone("b"));
  EXPECT_EQ(s.decide(0, "a"), DeepData::None);  // no correlation id
  EXPECT_EQ(s.decide(14, ""), DeepData::None);  // no name
}

TEST(LaunchScheduler, AlternateSassDoneAfterLastOddLaunch) {
  LaunchScheduler s(4, LaunchScheduler::Mode::Alternate);
  s.decide(1, "k");               // both
  s.decide(2, "k");               // PC
  EXPECT_FALSE(s.sassDone("k"));  // launch 3 would be SASS
  s.decide(3, "k");
  EXPECT_TRUE(s.sassDone("k"));  // launch 4 is PC sampling, then nothing
}

TEST(LaunchScheduler, SassUnavailableTurnsSassLaunchesIntoPcSampling) {
  LaunchScheduler s(5, LaunchScheduler::Mode::Alternate);
  EXPECT_EQ(s.decide(1, "k"), DeepData::Both);
  s.sassUnavailable();
  EXPECT_TRUE(s.sassDone("k"));
  EXPECT_EQ(s.decide(2, "k"), DeepData::PcSampling);
  EXPECT_EQ(s.decide(3, "k"), DeepData::PcSampling);  // would have been SASS
  EXPECT_EQ(s.describe(10),
            "SASS metrics off (see the sass_metrics note): PC sampling on every launch");
  LaunchScheduler both(5, LaunchScheduler::Mode::Both);
  both.sassUnavailable();
  EXPECT_EQ(both.decide(1, "k"), DeepData::PcSampling);
}

TEST(LaunchScheduler, DescribesWhichKernelGotWhat) {
  LaunchScheduler both(5, LaunchScheduler::Mode::Both);
  both.decide(1, "k");
  EXPECT_EQ(both.describe(10), "");
  LaunchScheduler alt(5, LaunchScheduler::Mode::Alternate);
  for (uint32_t id = 1; id <= 7; ++id) alt.decide(id, "big");
  alt.decide(100, "once");
  alt.decide(101, "twice");
  alt.decide(102, "twice");
  const std::string text = alt.describe(2);
  EXPECT_NE(text.find("big both 1/SASS 2/PC 4 of 7 launches"), std::string::npos) << text;
  EXPECT_NE(text.find("twice both 1/SASS 0/PC 1 of 2 launches"), std::string::npos) << text;
  EXPECT_NE(text.find("and 1 more kernels"), std::string::npos) << text;
  EXPECT_NE(alt.describe(5).find("once both 1/SASS 0/PC 0 of 1 launches"), std::string::npos);
}

TEST(LaunchScheduler, ThreadSafeCounting) {
  LaunchScheduler s(1000000, LaunchScheduler::Mode::Both);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&s, t] {
      for (uint32_t i = 0; i < 1000; ++i) s.decide(1 + t * 1000 + i, "f");
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(s.launches("f"), 4000u);
}

// A fake libcuda (the one table, driver_api.hpp): one device of compute capability fake_major, and
// a log of the context calls in order.
int fake_major = 9;
int fake_devices = 1;
std::vector<std::string> calls;
CUstreamCaptureMode thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;

DriverApi fakeDriver() {
  DriverApi a;
  a.init = [](unsigned) { return CUDA_SUCCESS; };
  a.deviceGetCount = [](int* n) {
    *n = fake_devices;
    return CUDA_SUCCESS;
  };
  a.deviceGetAttribute = [](int* v, CUdevice_attribute attr, CUdevice) {
    *v = attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? fake_major : 0;
    return CUDA_SUCCESS;
  };
  a.ctxGetCurrent = [](CUcontext* c) {
    *c = nullptr;
    return CUDA_SUCCESS;
  };
  a.ctxPushCurrent = [](CUcontext) {
    calls.push_back("push");
    return CUDA_SUCCESS;
  };
  a.ctxPopCurrent = [](CUcontext*) {
    calls.push_back("pop");
    return CUDA_SUCCESS;
  };
  a.ctxSynchronize = [] {
    calls.push_back(thread_mode == CU_STREAM_CAPTURE_MODE_RELAXED ? "sync relaxed" : "sync");
    return CUDA_SUCCESS;
  };
  a.exchangeStreamCaptureMode = [](CUstreamCaptureMode* m) {
    std::swap(*m, thread_mode);
    return CUDA_SUCCESS;
  };
  return a;
}

// The bounded wait through the table: an event recorded for the context and polled until done or
// the limit; without the event calls, a full synchronize.
bool event_done = true;
TEST(DeepSupport, BoundedWaitThroughTheDriverTable) {
  DriverApi api = fakeDriver();
  const auto ctx = reinterpret_cast<CUcontext>(0x10);
  EXPECT_EQ(waitForContext(nullptr, ctx, std::chrono::milliseconds(0)), ContextWait::Failed);
  calls.clear();
  EXPECT_EQ(waitForContext(&api, ctx, std::chrono::milliseconds(0)), ContextWait::Done);
  EXPECT_EQ(calls, (std::vector<std::string>{"push", "sync relaxed", "pop"}));  // no event calls
  api.eventCreate = [](CUevent* e, unsigned) {
    *e = reinterpret_cast<CUevent>(0x20);
    return CUDA_SUCCESS;
  };
  api.ctxRecordEvent = [](CUcontext, CUevent) { return CUDA_SUCCESS; };
  api.eventQuery = [](CUevent) { return event_done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY; };
  api.eventDestroy = [](CUevent) {
    calls.push_back("destroy");
    return CUDA_SUCCESS;
  };
  calls.clear();
  event_done = true;
  EXPECT_EQ(waitForContext(&api, ctx, std::chrono::milliseconds(0)), ContextWait::Done);
  EXPECT_EQ(calls, (std::vector<std::string>{"push", "destroy", "pop"}));
  event_done = false;
  EXPECT_EQ(waitForContext(&api, ctx, std::chrono::milliseconds(2)), ContextWait::TimedOut);
  EXPECT_EQ(thread_mode, CU_STREAM_CAPTURE_MODE_GLOBAL);  // restored
}

TEST(DeepSupport, BusIdThroughTheDriverTable) {
  DriverApi api = fakeDriver();
  EXPECT_EQ(gpuBusId(&api, 3), "device3");  // the driver cannot tell
  api.deviceGet = [](CUdevice* d, int ordinal) {
    *d = ordinal;
    return CUDA_SUCCESS;
  };
  api.deviceGetPciBusId = [](char* out, int len, CUdevice d) {
    std::snprintf(out, static_cast<size_t>(len), "0000:%02x:00.0", 0x19 + d);
    return CUDA_SUCCESS;
  };
  EXPECT_EQ(gpuBusId(&api, 1), "0000:1a:00.0");
  EXPECT_EQ(gpuBusId(nullptr, 1), "device1");
}

// A reference is kept only on the device's primary context, and given back for any other one.
TEST(DeepSupport, HoldsOnlyThePrimaryContext) {
  static CUcontext primary = reinterpret_cast<CUcontext>(0x50);
  static int retained = 0;
  DriverApi api = fakeDriver();
  EXPECT_FALSE(holdPrimaryContext(&api, primary));  // the driver lacks the primary-context calls
  api.ctxGetDevice = [](CUdevice* d) {
    *d = 0;
    return CUDA_SUCCESS;
  };
  api.primaryCtxRetain = [](CUcontext* c, CUdevice) {
    ++retained;
    *c = primary;
    return CUDA_SUCCESS;
  };
  api.primaryCtxRelease = [](CUdevice) {
    --retained;
    return CUDA_SUCCESS;
  };
  EXPECT_TRUE(holdPrimaryContext(&api, primary));
  EXPECT_EQ(retained, 1);
  EXPECT_FALSE(holdPrimaryContext(&api, reinterpret_cast<CUcontext>(0x60)));  // cuCtxCreate's
  EXPECT_EQ(retained, 1);
  EXPECT_FALSE(holdPrimaryContext(nullptr, primary));
}

TEST(DeepSupport, NoDriverSaysWhy) {
  std::string why;
  EXPECT_FALSE(deepCapableGpu(nullptr, "no NVIDIA driver (libcuda.so.1 not found)", &why));
  EXPECT_EQ(why, "no NVIDIA driver (libcuda.so.1 not found)");
  EXPECT_FALSE(synchronizeContext(nullptr, reinterpret_cast<CUcontext>(0x10)));
}

TEST(DeepSupport, GpuCheckThroughTheDriverTable) {
  const DriverApi api = fakeDriver();
  std::string why;
  fake_major = 9;
  fake_devices = 1;
  EXPECT_TRUE(deepCapableGpu(&api, "", &why)) << why;
  fake_major = 6;
  EXPECT_FALSE(deepCapableGpu(&api, "", &why));
  EXPECT_NE(why.find("older than compute capability 7.0"), std::string::npos) << why;
  fake_devices = 0;
  EXPECT_FALSE(deepCapableGpu(&api, "", &why));
  EXPECT_EQ(why, "no CUDA device");
  fake_major = 9;
  fake_devices = 1;
}

TEST(DeepSupport, ADriverWithoutAContextCallIsNamed) {
  DriverApi api = fakeDriver();
  api.ctxSynchronize = nullptr;
  std::string why;
  EXPECT_FALSE(deepCapableGpu(&api, "", &why));
  EXPECT_EQ(why, "libcuda.so.1 lacks cuCtxSynchronize");
  EXPECT_FALSE(synchronizeContext(&api, reinterpret_cast<CUcontext>(0x10)));
}

TEST(DeepSupport, SynchronizeRunsRelaxedAndRestoresTheCaptureMode) {
  const DriverApi api = fakeDriver();
  calls.clear();
  thread_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  EXPECT_TRUE(synchronizeContext(&api, reinterpret_cast<CUcontext>(0x10)));
  EXPECT_EQ(calls, (std::vector<std::string>{"push", "sync relaxed", "pop"}));
  EXPECT_EQ(thread_mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
  EXPECT_FALSE(synchronizeContext(&api, nullptr));  // no context: nothing to wait for
}

}  // namespace
}  // namespace gpufl::cuda
