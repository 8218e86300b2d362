// Shared pieces of the deep engines (SASS metrics, PC sampling, range profiler): CUPTI error text,
// the driver checks and waits they make through the one libcuda table (driver_api.hpp), and
// the launch policy that decides which launches are instrumented.
//
// Nothing here holds CUPTI state; the policy classes are plain logic so CPU tests can drive them.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda/driver_api.hpp"

namespace gpufl::cuda {

// A CUPTI parameter struct, zeroed, with its size field ("structSize" or "size") set.
template <typename T>
T cuptiParams(size_t struct_size) {
  T params{};
  if constexpr (requires { params.structSize; }) {
    params.structSize = struct_size;
  } else {
    params.size = struct_size;
  }
  return params;
}

// "cuptiXxx: CUPTI_ERROR_NAME (message)". Every CUPTI failure the deep engines report goes through
// this, so logs from the H200 say which call failed and why.
std::string cuptiError(std::string_view call, CUptiResult result);

// The driver refuses counters to this user (NVreg_RestrictProfilingToAdminUsers=1 and not root).
bool isPrivilegeError(CUptiResult result);
inline constexpr const char* kPrivilegeHint =
    "needs admin: NVreg_RestrictProfilingToAdminUsers=0 or root";

// Whether a GPU the deep engines can use is present: the driver loads, cuInit succeeds and at least
// one device of compute capability >= 7.0 exists. `why` says what is missing ("no NVIDIA driver:
// ...").
// cuptiProfilerInitialize, once per process (the result of the first call is kept). Under gpufl
// trace the engines start inside the program's cuInit, where this returns CUPTI_ERROR_UNKNOWN on
// the H200: they call it at their first context instead (injectedIntoCuInit()).
CUptiResult profilerInitializeOnce();
// True in a process where gpufl was started by gpufl trace's injection (GPUFL_INJECTED=1).
bool injectedIntoCuInit();

// `driver` is the process's libcuda table (EngineContext::driver); nullptr: no driver, and
// `driver_error` says why. The table must also hold every call the engines need (the context
// calls below), else `why` names the first one missing.
bool deepCapableGpu(const DriverApi* driver, const std::string& driver_error, std::string* why);

// Waits for all work of `context`, from any thread and even while a stream of this process is being
// captured into a graph (the calling thread switches to relaxed capture mode for the call). Best
// effort: returns false when the driver (or one of its context calls) is absent or the sync failed.
bool synchronizeContext(const DriverApi* driver, CUcontext context);

// Takes one reference on `context` if it is its device's primary context, kept until the process
// exits: a program that releases the primary context itself (cuDevicePrimaryCtxRelease) then no
// longer destroys it under CUPTI's SASS patching, which crashed libcupti's exit handler on the H200
// (torture case driver_api). The cost: that program's device memory stays allocated until exit,
// as in every program that never releases. Returns true when held; false for another context or
// without the driver calls.
bool holdPrimaryContext(const DriverApi* driver, CUcontext context);

// What a bounded wait for a context found.
enum class ContextWait : uint8_t {
  Done,      // every kernel submitted before the call has finished
  TimedOut,  // work still runs after `limit` (a long kernel, or one that waits for the host)
  Failed,    // no driver, or a driver call failed
};
// The PCI bus id of CUDA device `device` ("0000:19:00.0"), the same in every process whatever
// CUDA_VISIBLE_DEVICES says; "device<N>" when the driver cannot tell.
std::string gpuBusId(const DriverApi* driver, uint32_t device);

// Like synchronizeContext, but gives up after `limit` (0: only looks). A wait inside a launch
// callback must be bounded: the kernel waited for may itself wait for something this thread does
// after the launch returns (a flag in mapped memory, another rank of a collective), and an
// unbounded wait would deadlock a program that runs fine without gpufl.
ContextWait waitForContext(const DriverApi* driver, CUcontext context,
                           std::chrono::milliseconds limit);
// How long the engines wait for the GPU inside a launch callback (then they leave their state as it
// is and only look at later launches), and at shutdown (then what the GPU still runs is not
// collected, and the log says so).
inline constexpr std::chrono::milliseconds kLaunchPathWait{1000};
inline constexpr std::chrono::milliseconds kShutdownWait{10000};

// Which deep data a launch gets.
enum class DeepData : uint8_t { None = 0, Sass = 1, PcSampling = 2, Both = 3 };
inline bool hasSass(DeepData d) {
  return (static_cast<uint8_t>(d) & 1u) != 0;
}
inline bool hasPcSampling(DeepData d) {
  return (static_cast<uint8_t>(d) & 2u) != 0;
}

// Decides, per function, which of its launches the deep engines instrument. Only the first
// `deep_launches` launches of each function are instrumented. In Alternate mode (samples of
// SASS-patched code are biased) the first launch gets both, so a function launched once still has
// both kinds of data, then odd launches get SASS and even ones PC sampling (the PC sampling engine
// keeps the first launch's samples only for functions that have no clean ones). Thread-safe; the
// engines of one session share one scheduler, and the decision for a launch is made once (the
// second engine asking about the same correlation id gets the same answer).
class LaunchScheduler {
 public:
  enum class Mode { Both, Alternate };
  LaunchScheduler(int deep_launches, Mode mode) : deep_launches_(deep_launches), mode_(mode) {}

  // [app thread] The data this launch of `function` gets. Launches with correlation id 0 or an
  // empty name are never instrumented.
  DeepData decide(uint32_t correlation_id, std::string_view function);
  // [any thread] Launches of `function` decided so far (0 when never seen).
  uint64_t launches(std::string_view function) const;
  // [any thread] True once `function` can get no more SASS launches.
  bool sassDone(std::string_view function) const;
  // [any thread] Every function seen, with its launch count.
  std::vector<std::pair<std::string, uint64_t>> counts() const;
  // [any thread] SASS metrics cannot run (the engine failed to configure): from now on launches
  // that would have had SASS get PC sampling instead, and describe() says so.
  void sassUnavailable() { sass_off_.store(true, std::memory_order_relaxed); }
  Mode mode() const { return mode_; }
  int deepLaunches() const { return deep_launches_; }

  // For the session's notes: which deep data each kernel got and why ("" in Both mode). At most
  // `max_kernels` kernels are named, most launched first.
  std::string describe(size_t max_kernels) const;

  // Pure rule, exposed for tests: what the `ordinal`-th (1-based) launch of a function gets.
  static DeepData rule(uint64_t ordinal, int deep_launches, Mode mode);

 private:
  const int deep_launches_;
  const Mode mode_;
  std::atomic<bool> sass_off_{false};
  mutable std::mutex mutex_;
  std::unordered_map<std::string, uint64_t> counts_;
  // Recent decisions, so every engine asking about one launch gets the same answer (launches in
  // flight at once are far fewer than this).
  static constexpr size_t kRecent = 64;
  uint32_t recent_id_[kRecent] = {};
  DeepData recent_data_[kRecent] = {};
  size_t recent_next_ = 0;
};

}  // namespace gpufl::cuda
