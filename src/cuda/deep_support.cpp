#include "cuda/deep_support.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <thread>

#include "cuda/cupti_api.hpp"

namespace gpufl::cuda {

std::string cuptiError(std::string_view call, CUptiResult result) {
  const char* name = nullptr;
  if (cupti::cuptiGetResultString(result, &name) != CUPTI_SUCCESS || name == nullptr)
    name = "CUPTI_ERROR_?";
  std::string text(call);
  text += ": ";
  text += name;
  const char* message = nullptr;
  if (cupti::cuptiGetErrorMessage(result, &message) == CUPTI_SUCCESS && message != nullptr &&
      *message) {
    text += " (";
    text += message;
    text += ")";
  }
  return text;
}

bool isPrivilegeError(CUptiResult result) {
  return result == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
         result == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES;
}

namespace {

// The first of the driver calls the deep engines cannot do without that this driver lacks.
const char* missingDeepCall(const DriverApi& api) {
  const std::pair<bool, const char*> calls[] = {
      {api.init != nullptr, "cuInit"},
      {api.deviceGetCount != nullptr, "cuDeviceGetCount"},
      {api.deviceGetAttribute != nullptr, "cuDeviceGetAttribute"},
      {api.ctxGetCurrent != nullptr, "cuCtxGetCurrent"},
      {api.ctxPushCurrent != nullptr, "cuCtxPushCurrent_v2"},
      {api.ctxPopCurrent != nullptr, "cuCtxPopCurrent_v2"},
      {api.ctxSynchronize != nullptr, "cuCtxSynchronize"},
      {api.exchangeStreamCaptureMode != nullptr, "cuThreadExchangeStreamCaptureMode"}};
  for (const auto& [present, name] : calls)
    if (!present) return name;
  return nullptr;
}

}  // namespace

CUptiResult profilerInitializeOnce() {
  static std::mutex mutex;
  static bool done = false;
  static CUptiResult result = CUPTI_SUCCESS;
  std::lock_guard lock(mutex);
  if (!done) {
    auto init =
        cuptiParams<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    result = cupti::cuptiProfilerInitialize(&init);
    done = true;
  }
  return result;
}

bool injectedIntoCuInit() {
  const char* injected = std::getenv("GPUFL_INJECTED");
  return injected != nullptr && *injected == '1';
}

bool deepCapableGpu(const DriverApi* driver, const std::string& driver_error, std::string* why) {
  if (driver == nullptr) {
    if (why) *why = driver_error.empty() ? "no NVIDIA driver" : driver_error;
    return false;
  }
  if (const char* missing = missingDeepCall(*driver)) {
    if (why) *why = std::string(kDriverLibraryName) + " lacks " + missing;
    return false;
  }
  const DriverApi& api = *driver;
  // Under gpufl trace the engines start inside the program's own cuInit (InitializeInjection): a
  // nested cuInit there made the program's cuInit fail (PyTorch, H200). The GPUs are then checked
  // when their contexts appear.
  if (injectedIntoCuInit()) return true;
  if (CUresult r = api.init(0); r != CUDA_SUCCESS) {
    if (why) *why = "cuInit failed (CUresult " + std::to_string(r) + "): no usable GPU";
    return false;
  }
  int count = 0;
  if (api.deviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  for (int d = 0; d < count; ++d) {
    int major = 0;
    api.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
    if (major >= 7) return true;
  }
  if (why)
    *why = "every GPU is older than compute capability 7.0 (CUPTI's deep APIs need Volta or newer)";
  return false;
}

bool synchronizeContext(const DriverApi* driver, CUcontext context) {
  if (driver == nullptr || context == nullptr || missingDeepCall(*driver) != nullptr) return false;
  const DriverApi& api = *driver;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  api.exchangeStreamCaptureMode(
      &mode);  // relaxed: a sync must not invalidate another thread's capture
  bool ok = api.ctxPushCurrent(context) == CUDA_SUCCESS;
  if (ok) {
    ok = api.ctxSynchronize() == CUDA_SUCCESS;
    CUcontext popped = nullptr;
    api.ctxPopCurrent(&popped);
  }
  api.exchangeStreamCaptureMode(&mode);  // restores the thread's previous mode
  return ok;
}

bool holdPrimaryContext(const DriverApi* driver, CUcontext context) {
  if (driver == nullptr || context == nullptr || driver->primaryCtxRetain == nullptr ||
      driver->primaryCtxRelease == nullptr || driver->ctxPushCurrent == nullptr ||
      driver->ctxPopCurrent == nullptr || driver->ctxGetDevice == nullptr)
    return false;
  const DriverApi& api = *driver;
  if (api.ctxPushCurrent(context) != CUDA_SUCCESS) return false;
  CUdevice device = 0;
  const bool known = api.ctxGetDevice(&device) == CUDA_SUCCESS;
  CUcontext popped = nullptr;
  api.ctxPopCurrent(&popped);
  CUcontext primary = nullptr;
  if (!known || api.primaryCtxRetain(&primary, device) != CUDA_SUCCESS) return false;
  if (primary == context) return true;  // the reference stays: released by the driver at exit
  api.primaryCtxRelease(device);        // another context: give the reference back at once
  return false;
}

std::string gpuBusId(const DriverApi* driver, uint32_t device) {
  CUdevice handle = 0;
  char id[32] = {};
  if (driver != nullptr && driver->deviceGet != nullptr && driver->deviceGetPciBusId != nullptr &&
      driver->deviceGet(&handle, static_cast<int>(device)) == CUDA_SUCCESS &&
      driver->deviceGetPciBusId(id, sizeof(id), handle) == CUDA_SUCCESS)
    return id;
  return "device" + std::to_string(device);
}

ContextWait waitForContext(const DriverApi* driver, CUcontext context,
                           std::chrono::milliseconds limit) {
  if (driver == nullptr || context == nullptr || missingDeepCall(*driver) != nullptr)
    return ContextWait::Failed;
  const DriverApi& api = *driver;
  if (api.eventCreate == nullptr || api.ctxRecordEvent == nullptr || api.eventQuery == nullptr ||
      api.eventDestroy == nullptr)
    return synchronizeContext(driver, context) ? ContextWait::Done : ContextWait::Failed;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  api.exchangeStreamCaptureMode(&mode);  // as in synchronizeContext
  ContextWait result = ContextWait::Failed;
  if (api.ctxPushCurrent(context) == CUDA_SUCCESS) {
    CUevent event = nullptr;
    if (api.eventCreate(&event, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS) {
      if (api.ctxRecordEvent(context, event) == CUDA_SUCCESS) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        auto nap = std::chrono::microseconds(20);
        for (;;) {
          const CUresult q = api.eventQuery(event);
          if (q == CUDA_SUCCESS) {
            result = ContextWait::Done;
            break;
          }
          if (q != CUDA_ERROR_NOT_READY) break;
          if (std::chrono::steady_clock::now() >= deadline) {
            result = ContextWait::TimedOut;
            break;
          }
          std::this_thread::sleep_for(nap);
          nap = std::min(nap * 2, std::chrono::microseconds(1000));
        }
      }
      api.eventDestroy(event);
    }
    CUcontext popped = nullptr;
    api.ctxPopCurrent(&popped);
  }
  api.exchangeStreamCaptureMode(&mode);
  // A context whose event cannot be recorded (an older driver's answer) is waited for fully.
  if (result == ContextWait::Failed)
    return synchronizeContext(driver, context) ? ContextWait::Done : result;
  return result;
}

DeepData LaunchScheduler::rule(uint64_t ordinal, int deep_launches, Mode mode) {
  if (ordinal == 0 || deep_launches <= 0 || ordinal > static_cast<uint64_t>(deep_launches)) {
    return DeepData::None;
  }
  if (mode == Mode::Both || ordinal == 1) return DeepData::Both;
  return (ordinal % 2 == 1) ? DeepData::Sass : DeepData::PcSampling;
}

DeepData LaunchScheduler::decide(uint32_t correlation_id, std::string_view function) {
  if (correlation_id == 0 || function.empty()) return DeepData::None;
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < kRecent; ++i) {
    if (recent_id_[i] == correlation_id) return recent_data_[i];
  }
  auto it = counts_.find(std::string(function));
  if (it == counts_.end()) it = counts_.emplace(std::string(function), 0).first;
  DeepData data = rule(++it->second, deep_launches_, mode_);
  if (hasSass(data) && sass_off_.load(std::memory_order_relaxed)) data = DeepData::PcSampling;
  recent_id_[recent_next_] = correlation_id;
  recent_data_[recent_next_] = data;
  recent_next_ = (recent_next_ + 1) % kRecent;
  return data;
}

uint64_t LaunchScheduler::launches(std::string_view function) const {
  std::lock_guard lock(mutex_);
  auto it = counts_.find(std::string(function));
  return it == counts_.end() ? 0 : it->second;
}

bool LaunchScheduler::sassDone(std::string_view function) const {
  if (sass_off_.load(std::memory_order_relaxed)) return true;
  const uint64_t seen = launches(function);
  // The next launch would be ordinal seen+1; SASS is done when no later ordinal can get SASS.
  for (uint64_t next = seen + 1; next <= static_cast<uint64_t>(std::max(deep_launches_, 0));
       ++next) {
    if (hasSass(rule(next, deep_launches_, mode_))) return false;
  }
  return true;
}

}  // namespace gpufl::cuda

namespace gpufl::cuda {

std::vector<std::pair<std::string, uint64_t>> LaunchScheduler::counts() const {
  std::lock_guard lock(mutex_);
  return {counts_.begin(), counts_.end()};
}

std::string LaunchScheduler::describe(size_t max_kernels) const {
  if (mode_ != Mode::Alternate) return {};
  auto all = counts();
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (sass_off_.load(std::memory_order_relaxed))
    return "SASS metrics off (see the sass_metrics note): PC sampling on every launch";
  std::string text =
      "SASS metrics and PC sampling together on each kernel's first launch, then SASS on the odd "
      "launches among the first " +
      std::to_string(deep_launches_) +
      " and PC sampling on all others (samples of SASS-patched code are biased: the first "
      "launch's stalls count only for kernels without other sampled launches)";
  for (size_t i = 0; i < all.size() && i < max_kernels; ++i) {
    uint64_t both = 0, sass = 0;
    for (uint64_t n = 1;
         n <= all[i].second && n <= static_cast<uint64_t>(std::max(deep_launches_, 0)); ++n) {
      const DeepData d = rule(n, deep_launches_, mode_);
      both += d == DeepData::Both ? 1 : 0;
      sass += d == DeepData::Sass ? 1 : 0;
    }
    text += (i == 0 ? ": " : "; ") + all[i].first + " both " + std::to_string(both) + "/SASS " +
            std::to_string(sass) + "/PC " + std::to_string(all[i].second - both - sass) + " of " +
            std::to_string(all[i].second) + " launches";
  }
  if (all.size() > max_kernels)
    text += "; and " + std::to_string(all.size() - max_kernels) + " more kernels";
  return text;
}

}  // namespace gpufl::cuda
