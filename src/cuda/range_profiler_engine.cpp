#include "cuda/range_profiler_engine.hpp"

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/demangle.hpp"
#include "cuda/cupti_api.hpp"

namespace gpufl::cuda {
namespace {

constexpr const char* kTime = "gpu__time_duration.sum";
constexpr size_t kMaxRanges = 2;         // one range per session; slack for CUPTI's bookkeeping
constexpr size_t kMaxKernelRanges = 64;  // per-kernel ranges in one outermost scope (default)

}  // namespace

// ---- the engine ----

struct RangeProfilerEngine::Group {
  std::vector<std::string> metrics;
  std::vector<const char*> names;  // into metrics
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> config;
  std::vector<uint8_t> counter_data;
  ~Group() { freeHost(host); }
};

constexpr size_t kNoGroup = static_cast<size_t>(-1);

struct RangeProfilerEngine::Context {
  CUcontext handle = nullptr;
  CUpti_RangeProfiler_Object* object = nullptr;
  size_t configured_group = kNoGroup;  // the group whose config the object holds
  bool usable = false;
  std::string chip;
  std::vector<std::unique_ptr<Group>> groups;
};

RangeProfilerEngine::RangeProfilerEngine() : wanted_(defaultRangeMetrics()) {
  if (const char* v = std::getenv("GPUFL_RANGE_PHASE"))
    phase_ = std::max<uint64_t>(1, std::strtoull(v, nullptr, 10));
  if (const char* v = std::getenv("GPUFL_RANGE_PER_KERNEL")) per_kernel_ = *v && *v != '0';
  max_ranges_ = kMaxRanges;
  if (per_kernel_) {
    max_ranges_ = kMaxKernelRanges;
    if (const char* v = std::getenv("GPUFL_RANGE_MAX_KERNELS"))
      max_ranges_ = std::clamp<size_t>(std::strtoull(v, nullptr, 10), 1, 4096);
  }
}
RangeProfilerEngine::~RangeProfilerEngine() = default;

void RangeProfilerEngine::fail(const std::string& reason, CUptiResult r) {
  if (ctx_.note) {
    ctx_.note(
        "range_profiler", "off",
        cuptiError(reason, r) + (isPrivilegeError(r) ? std::string("; ") + kPrivilegeHint : ""));
  }
}

bool RangeProfilerEngine::start(const EngineContext& ctx) {
  ctx_ = ctx;
  std::string why;
  if (!deepCapableGpu(ctx_.driver, ctx_.driver_error, &why)) {
    if (ctx_.note) ctx_.note("range_profiler", "off", why);
    return false;
  }
  if (!cuptiLibrary().has(CuptiFeature::RangeProfiler, &why)) {
    if (ctx_.note) ctx_.note("range_profiler", "off", why);
    return false;
  }
  // Injected: inside the program's cuInit, where it fails; done at the first context instead.
  if (!injectedIntoCuInit()) {
    if (CUptiResult r = profilerInitializeOnce(); r != CUPTI_SUCCESS) {
      fail("cuptiProfilerInitialize", r);
      return false;
    }
  }
  started_ = true;
  return true;
}

bool RangeProfilerEngine::setUpLocked(Context& c, uint32_t device) {
  if (CUptiResult r = profilerInitializeOnce(); r != CUPTI_SUCCESS) {
    fail("cuptiProfilerInitialize", r);
    return false;
  }
  auto chip =
      cuptiParams<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = device;
  if (CUptiResult r = cupti::cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
    fail("cuptiDeviceGetChipName", r);
    return false;
  }
  c.chip = chip.pChipName;
  if (!plans_.count(c.chip)) {
    RangeMetricPlan plan = planRangeMetrics(
        wanted_, [&](const std::vector<std::string>& m) { return hostPassCount(c.chip, m); });
    std::string text =
        c.chip + ": " + std::to_string(plan.groups.size()) + " single-pass metric group(s)" +
        (plan.groups.size() > 1
             ? ", taking turns every " + std::to_string(phase_) + " ranges (a switch costs ~170 ms)"
             : std::string());
    if (per_kernel_)
      text +=
          "; one range per kernel launch in the outermost scope (GPUFL_RANGE_PER_KERNEL), up to " +
          std::to_string(max_ranges_) + " per scope instance";
    for (const std::string& u : plan.unavailable) text += "; unavailable per scope: " + u;
    if (ctx_.note) ctx_.note("range_profiler", plan.unavailable.empty() ? "on" : "degraded", text);
    plans_[c.chip] = std::move(plan);
  }
  const RangeMetricPlan& plan = plans_[c.chip];
  if (plan.groups.empty()) {
    if (ctx_.note)
      ctx_.note("range_profiler", "off", c.chip + ": none of the metrics can be collected");
    return false;
  }
  auto enable =
      cuptiParams<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = c.handle;
  if (CUptiResult r = cupti::cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerEnable", r);
    return false;
  }
  c.object = enable.pRangeProfilerObject;
  for (const auto& metrics : plan.groups) {
    auto g = std::make_unique<Group>();
    g->metrics = metrics;
    g->names = cStrings(g->metrics);
    CUptiResult r = CUPTI_SUCCESS;
    g->host = hostObject(c.chip, g->names, &g->config, &r);
    if (g->host == nullptr) {
      fail("cuptiProfilerHostConfigAddMetrics", r);
      return false;
    }
    auto size = cuptiParams<CUpti_RangeProfiler_GetCounterDataSize_Params>(
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pRangeProfilerObject = c.object;
    size.pMetricNames = g->names.data();
    size.numMetrics = g->names.size();
    size.maxNumOfRanges = max_ranges_;
    size.maxNumRangeTreeNodes = max_ranges_;
    if (r = cupti::cuptiRangeProfilerGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
      fail("cuptiRangeProfilerGetCounterDataSize", r);
      return false;
    }
    g->counter_data.assign(size.counterDataSize, 0);
    auto image = cuptiParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    image.pRangeProfilerObject = c.object;
    image.counterDataSize = g->counter_data.size();
    image.pCounterData = g->counter_data.data();
    if (r = cupti::cuptiRangeProfilerCounterDataImageInitialize(&image); r != CUPTI_SUCCESS) {
      fail("cuptiRangeProfilerCounterDataImageInitialize", r);
      return false;
    }
    c.groups.push_back(std::move(g));
  }
  c.usable = true;
  return true;
}

RangeProfilerEngine::Context* RangeProfilerEngine::contextLocked(CUcontext handle) {
  auto it = contexts_.find(handle);
  if (it != contexts_.end()) return it->second.get();
  // First sight of a context created before gpufl started: set it up now.
  uint32_t device = 0;
  if (cupti::cuptiGetDeviceId(handle, &device) != CUPTI_SUCCESS) return nullptr;
  auto c = std::make_unique<Context>();
  c->handle = handle;
  setUpLocked(*c, device);
  return (contexts_[handle] = std::move(c)).get();
}

void RangeProfilerEngine::onContextCreated(CUcontext context, uint32_t device) {
  std::lock_guard lock(mutex_);
  if (!started_ || contexts_.count(context)) return;
  auto c = std::make_unique<Context>();
  c->handle = context;
  setUpLocked(*c, device);
  contexts_[context] = std::move(c);
}

void RangeProfilerEngine::onContextDestroying(CUcontext context) {
  synchronizeContext(ctx_.driver, context);  // unlocked; a context going away has no capture open
  std::lock_guard lock(mutex_);
  if (open_.active && open_.context == context) closeLocked(false);
  auto it = contexts_.find(context);
  if (it == contexts_.end()) return;
  if (it->second->object != nullptr) {
    auto disable = cuptiParams<CUpti_RangeProfiler_Disable_Params>(
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    disable.pRangeProfilerObject = it->second->object;
    cupti::cuptiRangeProfilerDisable(&disable);
  }
  contexts_.erase(it);
}

void RangeProfilerEngine::onScopeBegin(uint32_t path, const char* name) {
  if (!started_ || name == nullptr) return;
  const DriverApi* driver = ctx_.driver;
  CUcontext current = nullptr;
  if (driver == nullptr || driver->ctxGetCurrent == nullptr ||
      driver->ctxGetCurrent(&current) != CUDA_SUCCESS || current == nullptr)
    return;
  std::unique_lock lock(mutex_);
  if (open_.active && open_.end_pending) finishUnlocked(lock, true);
  if (open_.active) {  // nested, or another thread's scope: counted in the open range
    ++skipped_;
    return;
  }
  if (ctx_.captureOpen()) {  // its launches may only be recorded into a graph; no wait is allowed
    ++skipped_capture_;
    return;
  }
  beginLocked(current, path, name, false, nullptr, 0);
}

bool RangeProfilerEngine::beginLocked(CUcontext current, uint32_t path, const char* name,
                                      bool launch_range, const char* kernel,
                                      uint32_t correlation_id) {
  Context* c = contextLocked(current);
  if (c == nullptr || !c->usable) return false;
  const bool auto_ranges = per_kernel_ && !launch_range;
  // Groups take turns in phases of phase_ ranges: a switch costs a new range profiler object
  // (below).
  const size_t g = (ranges_begun_++ / phase_) % c->groups.size();
  Group& group = *c->groups[g];
  // A range profiler object keeps the first config it was given (measured on the H200: metrics of a
  // later SetConfig's config evaluated to NaN), so switching groups means a new object (165-180 ms
  // there).
  if (c->configured_group != g && c->configured_group != kNoGroup) {
    auto disable = cuptiParams<CUpti_RangeProfiler_Disable_Params>(
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    disable.pRangeProfilerObject = c->object;
    cupti::cuptiRangeProfilerDisable(&disable);
    auto enable = cuptiParams<CUpti_RangeProfiler_Enable_Params>(
        CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = c->handle;
    c->object = nullptr;
    if (CUptiResult r = cupti::cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS) {
      c->usable = false;
      fail("cuptiRangeProfilerEnable", r);
      return false;
    }
    c->object = enable.pRangeProfilerObject;
  }
  c->configured_group = g;
  // Every range gets a counter data image of its own, laid out for this group: an image takes the
  // layout of the object's latest cuptiRangeProfilerGetCounterDataSize call (measured on the H200:
  // an image initialized after another group's size query evaluated every metric but
  // gpu__time_duration.sum to NaN), so the size is asked again right before.
  auto size = cuptiParams<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = c->object;
  size.pMetricNames = group.names.data();
  size.numMetrics = group.names.size();
  size.maxNumOfRanges = max_ranges_;
  size.maxNumRangeTreeNodes = max_ranges_;
  if (CUptiResult r = cupti::cuptiRangeProfilerGetCounterDataSize(&size); r != CUPTI_SUCCESS) {
    c->usable = false;
    fail("cuptiRangeProfilerGetCounterDataSize", r);
    return false;
  }
  std::vector<uint8_t> fresh(size.counterDataSize, 0);
  auto image = cuptiParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  image.pRangeProfilerObject = c->object;
  image.counterDataSize = fresh.size();
  image.pCounterData = fresh.data();
  if (CUptiResult r = cupti::cuptiRangeProfilerCounterDataImageInitialize(&image);
      r != CUPTI_SUCCESS) {
    c->usable = false;
    fail("cuptiRangeProfilerCounterDataImageInitialize", r);
    return false;
  }
  group.counter_data.swap(fresh);
  auto set = cuptiParams<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = c->object;
  set.configSize = group.config.size();
  set.pConfig = group.config.data();
  set.counterDataImageSize = group.counter_data.size();
  set.pCounterDataImage = group.counter_data.data();
  // Per kernel: auto ranges (CUPTI makes each launch a range) with user replay; auto ranges with
  // kernel replay crashed on the H200 (header comment).
  set.range = auto_ranges ? CUPTI_AutoRange : CUPTI_UserRange;
  set.replayMode = CUPTI_UserReplay;
  set.maxRangesPerPass = max_ranges_;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  auto begin =
      cuptiParams<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  begin.pRangeProfilerObject = c->object;
  auto push = cuptiParams<CUpti_RangeProfiler_PushRange_Params>(
      CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  push.pRangeProfilerObject = c->object;
  push.pRangeName = name;
  CUptiResult r = cupti::cuptiRangeProfilerSetConfig(&set);
  const char* call = "cuptiRangeProfilerSetConfig";
  if (r == CUPTI_SUCCESS)
    r = cupti::cuptiRangeProfilerStart(&begin), call = "cuptiRangeProfilerStart";
  if (r == CUPTI_SUCCESS && !auto_ranges)
    r = cupti::cuptiRangeProfilerPushRange(&push), call = "cuptiRangeProfilerPushRange";
  if (r != CUPTI_SUCCESS) {
    c->usable = false;  // a failing context stays off; tracing goes on
    fail(call, r);
    return false;
  }
  open_ = Open{};
  open_.active = true;
  open_.path = path;
  open_.name = name;
  open_.context = current;
  open_.group = g;
  open_.thread = std::this_thread::get_id();
  open_.auto_ranges = auto_ranges;
  open_.launch_range = launch_range;
  open_.kernel = kernel != nullptr ? kernel : "";
  open_.correlation_id = correlation_id;
  return true;
}

void RangeProfilerEngine::onLaunchEnter(const LaunchSite& launch) {
  if (!started_ || launch.captured) return;
  std::unique_lock lock(mutex_);
  if (open_.active && open_.end_pending) finishUnlocked(lock, true);
  if (open_.active && open_.overran) ++open_.launches_inside;
  // Auto ranges follow the launches on the context, from any thread, in submission order.
  if (open_.active && open_.auto_ranges && launch.context == open_.context &&
      open_.launches.size() < max_ranges_) {
    open_.launches.emplace_back(launch.symbol != nullptr ? launch.symbol
                                : launch.is_graph        ? "(graph launch)"
                                                         : "(unnamed kernel)");
  }
  // A graph launch is measured whole, under the kernel name "(graph launch)".
  const char* kernel = launch.is_graph ? "(graph launch)" : launch.symbol;
  if (open_.active || launch.scope_path != 0 || kernel == nullptr || *kernel == '\0' ||
      launch.context == nullptr || ctx_.captureOpen())
    return;
  auto seen = launch_ranges_.find(std::string_view(kernel));
  if (seen != launch_ranges_.end() && seen->second >= ctx_.deep_launches_per_kernel) return;
  if (ctx_.deep_launches_per_kernel <= 0) return;
  if (beginLocked(launch.context, 0, "(no scope)", true, kernel, launch.correlation_id)) {
    if (seen == launch_ranges_.end()) seen = launch_ranges_.emplace(kernel, 0).first;
    ++seen->second;
    ++launch_ranges_total_;
  }
}

void RangeProfilerEngine::onLaunchExit(const LaunchSite& launch) {
  if (!started_) return;
  std::unique_lock lock(mutex_);
  if (open_.active && open_.launch_range && open_.correlation_id == launch.correlation_id &&
      open_.thread == std::this_thread::get_id())
    finishUnlocked(lock, true);
}

void RangeProfilerEngine::onScopeEnd(uint32_t path) {
  if (!started_) return;
  std::unique_lock lock(mutex_);
  if (open_.active && !open_.launch_range && open_.path == path &&
      open_.thread == std::this_thread::get_id())
    finishUnlocked(lock, true);
}

void RangeProfilerEngine::finishUnlocked(std::unique_lock<std::mutex>& lock, bool keep,
                                         std::chrono::milliseconds limit) {
  if (open_.closing) return;
  if (ctx_.captureOpen()) {
    open_.end_pending = true;
    return;
  }
  open_.closing = true;
  const CUcontext context = open_.context;
  // Once overran, later hooks only look, so that no launch waits again for the same kernel.
  if (open_.overran && limit == kLaunchPathWait) limit = std::chrono::milliseconds(0);
  lock.unlock();
  const ContextWait waited =
      waitForContext(ctx_.driver, context, limit);  // the range's kernels run first
  lock.lock();
  if (!open_.active || !open_.closing || open_.context != context) return;  // closed meanwhile
  open_.closing = false;
  if (waited == ContextWait::TimedOut) {
    open_.overran = true;
    open_.end_pending = true;
    return;
  }
  if (open_.launches_inside > 0) {
    ++discarded_;
    keep = false;
  }
  closeLocked(keep);
}

void RangeProfilerEngine::closeLocked(bool keep) {
  Open open = open_;
  open_ = {};
  auto it = contexts_.find(open.context);
  if (it == contexts_.end() || !it->second->usable) return;
  Context& c = *it->second;
  Group& group = *c.groups[open.group];
  auto pop = cuptiParams<CUpti_RangeProfiler_PopRange_Params>(
      CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  pop.pRangeProfilerObject = c.object;
  auto stop =
      cuptiParams<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = c.object;
  auto decode = cuptiParams<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = c.object;
  CUptiResult r = CUPTI_SUCCESS;
  const char* call = "cuptiRangeProfilerPopRange";
  if (!open.auto_ranges) r = cupti::cuptiRangeProfilerPopRange(&pop);
  if (r == CUPTI_SUCCESS) r = cupti::cuptiRangeProfilerStop(&stop), call = "cuptiRangeProfilerStop";
  if (r == CUPTI_SUCCESS)
    r = cupti::cuptiRangeProfilerDecodeData(&decode), call = "cuptiRangeProfilerDecodeData";
  auto info = cuptiParams<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = group.counter_data.data();
  info.counterDataImageSize = group.counter_data.size();
  if (r == CUPTI_SUCCESS)
    r = cupti::cuptiRangeProfilerGetCounterDataInfo(&info),
    call = "cuptiRangeProfilerGetCounterDataInfo";
  // A scope range is range 0 (the image has room for 2); per kernel, every launch is one.
  size_t ranges = keep && r == CUPTI_SUCCESS ? info.numTotalRanges : 0;
  if (!open.auto_ranges) ranges = std::min<size_t>(ranges, 1);
  if (open.auto_ranges && ranges >= max_ranges_) ++kernels_without_range_;
  std::vector<RangeCounters> records;
  for (size_t i = 0; i < ranges && r == CUPTI_SUCCESS; ++i) {
    RangeCounters rc;
    if (evaluateRangeLocked(group, i, open, &rc, &r, &call)) records.push_back(std::move(rc));
  }
  if (r != CUPTI_SUCCESS) {
    c.usable = false;
    fail(call, r);
    return;
  }
  for (RangeCounters& rc : records) {
    addRatiosLocked(c.chip, ratio_parts_[{rc.path, rc.kernel}], rc);
    pending_.push_back(std::move(rc));
  }
}

bool RangeProfilerEngine::evaluateRangeLocked(const Group& group, size_t index, const Open& open,
                                              RangeCounters* rc, CUptiResult* r,
                                              const char** call) {
  std::vector<double> values(group.names.size(), NAN);
  auto eval = cuptiParams<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  eval.pHostObject = group.host;
  eval.pCounterDataImage = group.counter_data.data();
  eval.counterDataImageSize = group.counter_data.size();
  eval.rangeIndex = index;
  eval.ppMetricNames = const_cast<const char**>(group.names.data());
  eval.numMetrics = group.names.size();
  eval.pMetricValues = values.data();
  *r = cupti::cuptiProfilerHostEvaluateToGpuValues(&eval);
  *call = "cuptiProfilerHostEvaluateToGpuValues";
  if (*r != CUPTI_SUCCESS) return false;
  rc->range = open.name;
  rc->path = open.path;
  if (open.launch_range) {
    rc->kernel = demangle(open.kernel);
  } else if (open.auto_ranges) {
    // CUPTI numbers auto ranges ("0", "1", ...) instead of naming them: range i is the i-th launch
    // seen since Start. Should the counts ever disagree, the record keeps CUPTI's name, marked.
    if (index < open.launches.size()) {
      rc->kernel = demangle(open.launches[index]);
    } else {
      auto range = cuptiParams<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
          CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
      range.pCounterDataImage = group.counter_data.data();
      range.counterDataImageSize = group.counter_data.size();
      range.rangeIndex = index;
      range.rangeDelimiter = "/";
      const bool named =
          cupti::cuptiRangeProfilerCounterDataGetRangeInfo(&range) == CUPTI_SUCCESS &&
          range.rangeName != nullptr;
      rc->kernel =
          std::string("(auto range ") + (named ? range.rangeName : "?") + ", launch unknown)";
    }
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isnan(values[i])) rc->metrics[group.metrics[i]] = values[i];
  return true;
}

// A ratio whose two counters need separate passes: from the latest instance that collected each.
void RangeProfilerEngine::addRatiosLocked(const std::string& chip, RatioParts& parts,
                                          RangeCounters& rc) const {
  for (const auto& [name, value] : rc.metrics) parts[name] = value;
  auto plan = plans_.find(chip);
  if (plan == plans_.end()) return;
  for (const auto& ratio : plan->second.ratios) {
    auto part = parts.find(ratio.part), rest = parts.find(ratio.rest);
    if (part == parts.end() || rest == parts.end() || part->second + rest->second <= 0) continue;
    if (!rc.metrics.count(ratio.part) && !rc.metrics.count(ratio.rest)) continue;
    rc.metrics[ratio.name] = 100.0 * part->second / (part->second + rest->second);
  }
}

void RangeProfilerEngine::drain(EventVisitor& out) {
  std::vector<RangeCounters> ready;
  {
    std::lock_guard lock(mutex_);
    ready.swap(pending_);
  }
  for (const RangeCounters& rc : ready) out.onRangeCounters(rc);
}

void RangeProfilerEngine::stop() {
  std::unique_lock lock(mutex_);
  if (!started_) return;
  if (open_.active) finishUnlocked(lock, true, kShutdownWait);
  if (open_.active) {  // a capture still open, or kernels still running: not collected
    const bool capturing = ctx_.captureOpen();
    open_ = {};
    if (ctx_.note)
      ctx_.note("range_profiler", "degraded",
                capturing ? "a stream capture was still open at shutdown: the last range was not "
                            "collected"
                          : "the GPU still ran the last range's kernels " +
                                std::to_string(kShutdownWait.count() / 1000) +
                                " s into shutdown: that range was not collected");
  }
  if (discarded_ > 0 && ctx_.note)
    ctx_.note("range_profiler", "degraded",
              std::to_string(discarded_) + " range(s) discarded: their kernels still ran " +
                  std::to_string(kLaunchPathWait.count()) +
                  " ms after the range ended (a long kernel, or one waiting for the host or "
                  "another kernel) and later launches ran inside them; gpufl waits no longer "
                  "than that inside the program's calls");
  for (auto& [handle, c] : contexts_) {
    if (c->object == nullptr) continue;
    auto disable = cuptiParams<CUpti_RangeProfiler_Disable_Params>(
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    disable.pRangeProfilerObject = c->object;
    cupti::cuptiRangeProfilerDisable(&disable);
    c->object = nullptr;
    c->usable = false;
  }
  contexts_.clear();
  auto deinit = cuptiParams<CUpti_Profiler_DeInitialize_Params>(
      CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
  cupti::cuptiProfilerDeInitialize(&deinit);
  started_ = false;
  if (kernels_without_range_ > 0 && ctx_.note) {
    ctx_.note("range_profiler", "degraded",
              std::to_string(kernels_without_range_) + " scope instances launched " +
                  std::to_string(max_ranges_) +
                  " kernels or more: launches past that have no counters "
                  "(GPUFL_RANGE_MAX_KERNELS)");
  }
  if (launch_ranges_total_ > 0 && ctx_.note) {
    ctx_.note("range_profiler", "on",
              std::to_string(launch_ranges_total_) +
                  " kernel launches outside any scope measured, " +
                  std::to_string(launch_ranges_.size()) + " kernels, the first " +
                  std::to_string(ctx_.deep_launches_per_kernel) +
                  " launches of each (deep_launches_per_kernel), each waited for at its end; "
                  "range_counters with range \"(no scope)\" and the kernel");
  }
  if (skipped_capture_ > 0 && ctx_.note) {
    ctx_.note("range_profiler", "degraded",
              std::to_string(skipped_capture_) +
                  " scopes began while a stream capture was open and have no counters (no wait is "
                  "allowed during a capture)");
  }
  if (skipped_ > 0 && ctx_.note) {
    ctx_.note("range_profiler", "on",
              std::to_string(skipped_) +
                  " scopes ran inside another profiled range (nested or on another "
                  "thread) and have no counters of their own");
  }
}

}  // namespace gpufl::cuda
