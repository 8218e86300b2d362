#include "cuda/sass_metrics_engine.hpp"

#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include "core/clock.hpp"
#include "cuda/cupti_api.hpp"

namespace gpufl::cuda {
namespace {

constexpr const char* kMetricNames[] = {
    "smsp__sass_inst_executed", "smsp__sass_thread_inst_executed",
    "smsp__sass_thread_inst_executed_pred_on", "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal"};
constexpr size_t kRemembered = 65536;  // instrumented correlation ids kept for wasInstrumented

// The launch this thread is inside of, when it runs instrumented (matched in onLaunchExit).
struct InFlight {
  const void* engine = nullptr;
  uint32_t correlation_id = 0;
  CUcontext context = nullptr;
};
thread_local InFlight t_in_flight;

}  // namespace

const char* sassCounterMetric(SassCounter counter) {
  return kMetricNames[static_cast<size_t>(counter)];
}

void SassAggregator::add(uint64_t crc, const std::string& function, uint64_t pc,
                         SassCounter counter, uint64_t value) {
  Row& row = rows_[Key{function, crc, pc}];
  if (row.function.empty()) {
    row.crc = crc;
    row.function = function;
    row.pc = pc;
  }
  row.value[static_cast<size_t>(counter)] += value;
}

std::vector<std::pair<SassAggregator::Row, uint64_t>> SassAggregator::take(
    const std::function<bool(const std::string&)>& done) {
  std::vector<std::pair<Row, uint64_t>> out;
  std::set<std::string> taken;
  for (auto it = rows_.begin(); it != rows_.end();) {
    const std::string fn = it->second.function;  // a copy: the row is moved out below
    const uint64_t launches = launches_.count(fn) ? launches_[fn] : 0;
    const bool flushed = flushed_.count(fn) && flushed_[fn] == launches;
    if (done && !(flushed && done(fn))) {
      ++it;
      continue;
    }
    bool any = false;
    for (uint64_t v : it->second.value) any = any || v != 0;
    if (any) out.emplace_back(std::move(it->second), launches);
    taken.insert(fn);
    it = rows_.erase(it);
  }
  for (const std::string& fn : taken) {  // a later set of rows for fn counts its own launches
    launches_.erase(fn);
    flushed_.erase(fn);
  }
  return out;
}

SassMetricPlan planSassMetrics(const std::set<std::string>& available) {
  SassMetricPlan plan;
  for (SassCounter c : {SassCounter::Inst, SassCounter::ThreadInst, SassCounter::Sectors}) {
    if (!available.count(sassCounterMetric(c))) {
      plan.problem = std::string("the chip has no ") + sassCounterMetric(c);
      return plan;
    }
    plan.metrics[c] = sassCounterMetric(c);
  }
  if (available.count(sassCounterMetric(SassCounter::SectorsIdeal))) {
    plan.metrics[SassCounter::SectorsIdeal] = sassCounterMetric(SassCounter::SectorsIdeal);
    plan.ideal_from_hardware = true;
  } else if (available.count(sassCounterMetric(SassCounter::ThreadInstPredOn))) {
    plan.metrics[SassCounter::ThreadInstPredOn] = sassCounterMetric(SassCounter::ThreadInstPredOn);
  }
  return plan;
}

SassMetricsEngine::SassMetricsEngine(std::shared_ptr<LaunchScheduler> scheduler,
                                     std::shared_ptr<CubinStore> cubins)
    : scheduler_(std::move(scheduler)), cubins_(std::move(cubins)) {}

SassMetricsEngine::~SassMetricsEngine() = default;

void SassMetricsEngine::note(const std::string& status, const std::string& reason) {
  if (ctx_.note) ctx_.note("sass_metrics", status, reason);
}

bool SassMetricsEngine::start(const EngineContext& ctx) {
  ctx_ = ctx;
  std::string why;
  if (!deepCapableGpu(ctx_.driver, ctx_.driver_error, &why)) {
    note("off", why);
    return false;
  }
  if (!cuptiLibrary().has(CuptiFeature::SassMetrics, &why)) {
    note("off", why);
    return false;
  }
  // Injected: inside the program's cuInit, where it fails; done at the first launch instead.
  if (!injectedIntoCuInit()) {
    if (CUptiResult r = profilerInitializeOnce(); r != CUPTI_SUCCESS) {
      note("off", cuptiError("cuptiProfilerInitialize", r) +
                      (isPrivilegeError(r) ? std::string("; ") + kPrivilegeHint : ""));
      return false;
    }
  }
  std::lock_guard lock(mutex_);
  started_ = true;
  return true;
}

bool SassMetricsEngine::configureDeviceLocked(uint32_t device) {
  if (plans_.count(device)) return true;
  if (CUptiResult r = profilerInitializeOnce(); r != CUPTI_SUCCESS) {
    note("off", cuptiError("cuptiProfilerInitialize", r) +
                    (isPrivilegeError(r) ? std::string("; ") + kPrivilegeHint : ""));
    return false;
  }
  auto chip =
      cuptiParams<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = device;
  if (CUptiResult r = cupti::cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
    note("off", cuptiError("cuptiDeviceGetChipName", r));
    return false;
  }
  auto count = cuptiParams<CUpti_SassMetrics_GetNumOfMetrics_Params>(
      CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE);
  count.pChipName = chip.pChipName;
  std::vector<CUpti_SassMetrics_MetricDetails> details;
  if (CUptiResult r = cupti::cuptiSassMetricsGetNumOfMetrics(&count); r == CUPTI_SUCCESS) {
    details.resize(count.numOfMetrics);
    auto list = cuptiParams<CUpti_SassMetrics_GetMetrics_Params>(
        CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE);
    list.pChipName = chip.pChipName;
    list.numOfMetrics = details.size();
    list.pMetricsList = details.data();
    if (r = cupti::cuptiSassMetricsGetMetrics(&list); r != CUPTI_SUCCESS) details.clear();
  }
  std::set<std::string> available;
  for (const auto& d : details) available.insert(d.pMetricName ? d.pMetricName : "");
  SassMetricPlan plan = planSassMetrics(available);
  if (!plan.problem.empty()) {
    note("off", std::string(chip.pChipName) + ": " + plan.problem);
    return false;
  }
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const auto& [counter, metric] : plan.metrics) {
    auto prop = cuptiParams<CUpti_SassMetrics_GetProperties_Params>(
        CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
    prop.pChipName = chip.pChipName;
    prop.pMetricName = metric.c_str();
    if (CUptiResult r = cupti::cuptiSassMetricsGetProperties(&prop); r != CUPTI_SUCCESS) {
      note("off", cuptiError("cuptiSassMetricsGetProperties(" + metric + ")", r));
      return false;
    }
    metric_ids_[prop.metric.metricId] = counter;
    configs.push_back({prop.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  auto set =
      cuptiParams<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = device;
  if (CUptiResult r = cupti::cuptiSassMetricsSetConfig(&set); r != CUPTI_SUCCESS) {
    note("off", cuptiError("cuptiSassMetricsSetConfig", r) +
                    (isPrivilegeError(r) ? std::string("; ") + kPrivilegeHint : ""));
    return false;
  }
  note(plan.ideal_from_hardware ? "on" : "degraded",
       std::string(chip.pChipName) + ", device " + std::to_string(device) + ": first " +
           std::to_string(scheduler_->deepLaunches()) + " launches of each kernel; " +
           (plan.ideal_from_hardware ? "ideal sectors from smsp__sass_sectors_mem_global_ideal"
                                     : "no smsp__sass_sectors_mem_global_ideal on this chip: ideal "
                                       "sectors estimated from each instruction's access width"));
  estimate_ideal_ = estimate_ideal_ || !plan.ideal_from_hardware;
  plans_[device] = std::move(plan);
  return true;
}

// The device is configured at the context's first launch, not here: in this callback the new
// context need not be current (Numba retains the primary context and pushes it afterwards), and
// cuptiSassMetricsSetConfig then fails with CUPTI_ERROR_INVALID_CONTEXT (seen on the H200).
void SassMetricsEngine::onContextCreated(CUcontext context, uint32_t device) {
  std::lock_guard lock(mutex_);
  if (!started_) return;
  Context& c = contexts_[context];
  c.handle = context;
  c.device = device;
}

void SassMetricsEngine::onContextDestroying(CUcontext context) {
  synchronizeContext(ctx_.driver,
                     context);  // the context is going away: no capture can be open on it
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(context);
  if (it == contexts_.end()) return;
  if (it->second.enabled) {
    flushLocked(it->second);
    disableLocked(it->second);
  }
  const uint32_t device = it->second.device;
  contexts_.erase(it);
  // The device's last context: its SASS configuration goes with it (set again at the next
  // context's first launch), so that libcupti holds nothing of a destroyed context at exit.
  for (const auto& [handle, c] : contexts_)
    if (c.device == device) return;
  if (plans_.erase(device) != 0) unsetConfig(device);
}

void SassMetricsEngine::closeUnlocked(std::unique_lock<std::mutex>& lock, CUcontext handle) {
  auto it = contexts_.find(handle);
  if (it == contexts_.end() || it->second.closing || ctx_.captureOpen()) return;
  it->second.closing = true;
  const uint64_t submitted = it->second.submitted;
  const auto limit = it->second.gpu_busy ? std::chrono::milliseconds(0) : kLaunchPathWait;
  lock.unlock();
  const ContextWait waited = waitForContext(ctx_.driver, handle, limit);
  lock.lock();
  it = contexts_.find(handle);
  if (it == contexts_.end()) return;  // destroyed meanwhile (flushed there)
  Context& c = it->second;
  c.closing = false;
  c.gpu_busy = waited == ContextWait::TimedOut;
  if (c.gpu_busy) {  // flushing now would lose the running kernels' counts: a later launch closes
    if (noted_.insert("busy").second)
      note("degraded",
           "the GPU was still busy " + std::to_string(kLaunchPathWait.count()) +
               " ms after SASS instrumentation should have ended (a long kernel, or one "
               "waiting for the host): SASS stayed on until it was idle, so launches "
               "meanwhile were instrumented too");
    return;
  }
  if (!c.enabled || c.in_flight > 0 || c.submitted != submitted || ctx_.captureOpen()) return;
  flushLocked(c);
  disableLocked(c);
}

void SassMetricsEngine::onModuleUnloading(CUcontext context) {
  if (!started_) return;
  std::unique_lock lock(mutex_);
  auto it = contexts_.find(context);
  if (it == contexts_.end() || !it->second.enabled || it->second.in_flight > 0) return;
  closeUnlocked(lock, context);
}

void SassMetricsEngine::onModuleLoaded(CUcontext, const void* cubin, size_t bytes) {
  if (cubins_ && !cubins_->add(cubin, bytes)) {
    std::lock_guard lock(mutex_);
    if (noted_.insert("cubin_budget").second) {
      note("degraded",
           "cubin copy budget full: SASS text and source lines missing for later modules");
    }
  }
}

bool SassMetricsEngine::enableLocked(Context& c) {
  auto enable =
      cuptiParams<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  enable.ctx = c.handle;
  // Lazy: each function is patched at its first launch in the range. Eager patching (0) patched
  // nothing on the H200, as functions are loaded lazily (CUDA_MODULE_LOADING=LAZY) after Enable.
  enable.enableLazyPatching = 1;
  if (CUptiResult r = cupti::cuptiSassMetricsEnable(&enable); r != CUPTI_SUCCESS) {
    c.usable = false;  // one failure turns this context off rather than retrying on every launch
    note("off", cuptiError("cuptiSassMetricsEnable", r) +
                    (isPrivilegeError(r) ? std::string("; ") + kPrivilegeHint : ""));
    return false;
  }
  c.enabled = true;
  enabled_contexts_.fetch_add(1, std::memory_order_release);
  return true;
}

void SassMetricsEngine::flushLocked(Context& c) {
  auto props = cuptiParams<CUpti_SassMetricsGetDataProperties_Params>(
      CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  props.ctx = c.handle;
  if (CUptiResult r = cupti::cuptiSassMetricsGetDataProperties(&props); r != CUPTI_SUCCESS) {
    if (noted_.insert("props").second)
      note("degraded", cuptiError("cuptiSassMetricsGetDataProperties", r));
    return;
  }
  if (props.numOfPatchedInstructionRecords == 0 || props.numOfInstances == 0) {
    aggregator_.markFlushed();
    return;
  }
  std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
  std::vector<CUpti_SassMetrics_InstanceValue> values(data.size() * props.numOfInstances);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = &values[i * props.numOfInstances];
  }
  auto flush =
      cuptiParams<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
  flush.ctx = c.handle;
  flush.numOfPatchedInstructionRecords = data.size();
  flush.numOfInstances = props.numOfInstances;
  flush.pMetricsData = data.data();
  if (CUptiResult r = cupti::cuptiSassMetricsFlushData(&flush); r != CUPTI_SUCCESS) {
    if (noted_.insert("flush").second) note("degraded", cuptiError("cuptiSassMetricsFlushData", r));
    return;
  }
  for (const CUpti_SassMetrics_Data& d : data) {
    const std::string function = d.functionName ? d.functionName : "";
    for (size_t j = 0; j < props.numOfInstances; ++j) {  // GPU granularity: one instance; sum any
      auto id = metric_ids_.find(d.pInstanceValues[j].metricId);
      if (id != metric_ids_.end()) {
        aggregator_.add(d.cubinCrc, function, d.pcOffset, id->second, d.pInstanceValues[j].value);
      }
    }
  }
  aggregator_.markFlushed();
}

void SassMetricsEngine::unsetConfig(uint32_t device) {
  auto unset = cuptiParams<CUpti_SassMetricsUnsetConfig_Params>(
      CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE);
  unset.deviceIndex = device;
  cupti::cuptiSassMetricsUnsetConfig(&unset);
}

void SassMetricsEngine::disableLocked(Context& c) {
  auto disable =
      cuptiParams<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
  disable.ctx = c.handle;
  CUptiResult r = cupti::cuptiSassMetricsDisable(&disable);
  if (c.enabled) enabled_contexts_.fetch_sub(1, std::memory_order_release);
  c.enabled = false;
  if (r != CUPTI_SUCCESS && noted_.insert("disable").second) {
    note("degraded", cuptiError("cuptiSassMetricsDisable", r));
  } else if (disable.numOfDroppedRecords > 0 && noted_.insert("dropped").second) {
    note("degraded",
         std::to_string(disable.numOfDroppedRecords) + " SASS records dropped at disable");
  }
}

void SassMetricsEngine::rememberInstrumentedLocked(uint32_t correlation_id) {
  if (!instrumented_.insert(correlation_id).second) return;
  instrumented_order_.push_back(correlation_id);
  if (instrumented_order_.size() > kRemembered) {
    instrumented_.erase(instrumented_order_.front());
    instrumented_order_.pop_front();
  }
}

bool SassMetricsEngine::launchMustRunAlone(const LaunchSite& launch) {
  if (!started_ || launch.captured) return false;
  if (enabled_contexts_.load(std::memory_order_acquire) > 0) return true;
  const bool nameable = launch.symbol != nullptr && *launch.symbol != '\0' && !launch.is_graph;
  return nameable && hasSass(scheduler_->decide(launch.correlation_id, launch.symbol));
}

bool SassMetricsEngine::heldShared() const {
  return ctx_.gate != nullptr && ctx_.gate->held() == LaunchGate::Hold::Shared;
}

void SassMetricsEngine::onLaunchEnter(const LaunchSite& launch) {
  // A launch into an open capture does not run now; its graph's launches are not instrumented.
  if (!started_ || launch.captured) return;
  const bool nameable = launch.symbol != nullptr && *launch.symbol != '\0' && !launch.is_graph;
  const DeepData data =
      nameable ? scheduler_->decide(launch.correlation_id, launch.symbol) : DeepData::None;
  const bool want = hasSass(data);
  std::unique_lock lock(mutex_);
  auto it = contexts_.find(launch.context);
  if (it == contexts_.end() && launch.context != nullptr) {
    // A context created before gpufl started (no context-created callback).
    uint32_t device = 0;
    if (cupti::cuptiGetDeviceId(launch.context, &device) == CUPTI_SUCCESS)
      it = contexts_.emplace(launch.context, Context{launch.context, device}).first;
  }
  if (it == contexts_.end()) return;
  if (enabled_contexts_.load(std::memory_order_acquire) > 0 && heldShared()) {
    // Enabled after launchMustRunAlone looked: this launch may be patched, so it runs alone.
    // (Nothing enables SASS while a shared hold is out, so the state seen now cannot go stale.)
    lock.unlock();
    ctx_.gate->upgrade();
    lock.lock();
    it = contexts_.find(launch.context);
    if (it == contexts_.end()) return;
  }
  if (!it->second.configured) {  // first launch: the context is current on this thread
    it->second.configured = true;
    it->second.usable = configureDeviceLocked(it->second.device);
    if (!it->second.usable) scheduler_->sassUnavailable();
    if (it->second.usable && holdPrimaryContext(ctx_.driver, launch.context) &&
        noted_.insert("primary_held").second)
      note("on",
           "gpufl holds a reference on the primary context it patches SASS in, to the "
           "process's end: a program that releases the primary context keeps its device "
           "memory until exit");
  }
  if (!it->second.usable) return;
  if (!want && it->second.enabled && it->second.in_flight == 0) {
    closeUnlocked(lock, launch.context);
    it = contexts_.find(launch.context);
    if (it == contexts_.end()) return;
  }
  Context& c = it->second;
  const int64_t now = core::monotonicNs();
  if (want && !c.enabled && !c.closing && !ctx_.captureOpen() && !heldShared()) {
    if (!serializeKernelsLocked(now) || !enableLocked(c)) return;
  }
  if (!c.enabled) {
    relaxKernelsUnlocked(lock, now);
    return;
  }
  if (ctx_.kernel_activity) ctx_.kernel_activity->instrumented(now);
  // Enabled from this enter to the matching exit: the launch is patched and counted, even when it
  // was not asked for (another thread's instrumented launch kept SASS on), so it is counted as
  // such.
  ++c.in_flight;
  ++c.submitted;
  t_in_flight = {this, launch.correlation_id, launch.context};
  if (nameable) aggregator_.countLaunch(launch.symbol);
  rememberInstrumentedLocked(launch.correlation_id);
}

bool SassMetricsEngine::serializeKernelsLocked(int64_t now_ns) {
  if (ctx_.kernel_activity == nullptr || ctx_.kernel_activity->serialize(now_ns)) return true;
  if (noted_.insert("serialize").second)
    note("degraded",
         "CUPTI refused to trace kernels serialized (CUPTI_ACTIVITY_KIND_KERNEL), which SASS "
         "metrics need: launches meanwhile were not instrumented");
  return false;
}

// Back to concurrent kernel tracing once no launch has been instrumented for a while. The swap
// needs the gate exclusively (no other launch between the two kinds): this launch, let through
// shared, is upgraded, which happens once per serialized window.
void SassMetricsEngine::relaxKernelsUnlocked(std::unique_lock<std::mutex>& lock, int64_t now_ns) {
  KernelActivitySwitch* sw = ctx_.kernel_activity;
  auto may = [&] {
    return sw != nullptr && sw->relaxDue(now_ns) &&
           enabled_contexts_.load(std::memory_order_acquire) == 0 && !ctx_.captureOpen();
  };
  if (!may()) return;
  if (heldShared()) {
    lock.unlock();
    ctx_.gate->upgrade();
    lock.lock();
    if (!may()) return;  // another thread instrumented or relaxed meanwhile
  }
  sw->relax(now_ns);
}

void SassMetricsEngine::onLaunchExit(const LaunchSite& launch) {
  if (t_in_flight.engine == this && t_in_flight.correlation_id == launch.correlation_id) {
    std::lock_guard lock(mutex_);
    if (auto it = contexts_.find(t_in_flight.context);
        it != contexts_.end() && it->second.in_flight > 0) {
      --it->second.in_flight;
    }
    t_in_flight = {};
  }
}

void SassMetricsEngine::onCaptureBeginning() {
  if (!started_) return;
  std::unique_lock lock(mutex_);
  std::vector<CUcontext> enabled;
  for (auto& [handle, c] : contexts_)
    if (c.enabled && c.in_flight == 0) enabled.push_back(handle);
  for (CUcontext handle : enabled) closeUnlocked(lock, handle);
}

bool SassMetricsEngine::wasInstrumented(uint64_t correlation_id) const {
  std::lock_guard lock(mutex_);
  return instrumented_.count(static_cast<uint32_t>(correlation_id)) != 0;
}

void SassMetricsEngine::drain(EventVisitor& out) {
  std::vector<std::pair<SassAggregator::Row, uint64_t>> rows;
  bool estimate = false;
  {
    std::lock_guard lock(mutex_);
    // While running: functions that can get no more SASS launches; after stop(): everything.
    std::function<bool(const std::string&)> done;
    if (started_) done = [this](const std::string& fn) { return scheduler_->sassDone(fn); };
    rows = aggregator_.take(done);
    estimate = estimate_ideal_;
  }
  emit(out, std::move(rows), estimate);
}

void SassMetricsEngine::emit(EventVisitor& out,
                             std::vector<std::pair<SassAggregator::Row, uint64_t>> rows,
                             bool estimate_ideal) {
  bool missing_width = false;
  if (cubins_) {
    std::vector<std::pair<uint64_t, std::string>> functions;
    for (const auto& [row, launches] : rows)
      if (functions.empty() || functions.back().second != row.function ||
          functions.back().first != row.crc)
        functions.emplace_back(row.crc, row.function);
    cubins_->prefetch(functions);
  }
  for (auto& [row, launches] : rows) {
    SassMetric m;
    m.func = row.function;
    m.pc = row.pc;
    m.launches = launches;
    m.inst_executed = row.get(SassCounter::Inst);
    m.thread_inst_executed = row.get(SassCounter::ThreadInst);
    m.sectors_global = row.get(SassCounter::Sectors);
    SassInstruction instruction;
    if (cubins_) instruction = cubins_->instruction(row.crc, row.function, row.pc);
    if (!estimate_ideal) {
      m.sectors_global_ideal = row.get(SassCounter::SectorsIdeal);
    } else if (m.sectors_global > 0) {
      const uint64_t active = row.get(SassCounter::ThreadInstPredOn)
                                  ? row.get(SassCounter::ThreadInstPredOn)
                                  : m.thread_inst_executed;
      const int bytes = globalAccessBytes(instruction.text);
      missing_width = missing_width || instruction.text.empty();
      m.sectors_global_ideal = estimateIdealSectors(m.inst_executed, active, bytes);
    }
    m.sass = std::move(instruction.text);
    m.source = std::move(instruction.source);
    out.onSassMetric(m);
  }
  if (missing_width) {
    std::lock_guard lock(mutex_);
    if (noted_.insert("no_width").second) {
      note("degraded",
           "ideal sectors unknown for instructions without SASS text (nvdisasm not found: "
           "set GPUFL_NVDISASM); their sectors_global_ideal is 0");
    }
  }
}

void SassMetricsEngine::stop() {
  std::vector<CUcontext> enabled;
  {
    std::lock_guard lock(mutex_);
    for (auto& [handle, c] : contexts_)
      if (c.enabled) enabled.push_back(handle);
  }
  // Unlocked, as in closeUnlocked. A capture still open at shutdown loses this flush (said in a
  // note).
  const bool capturing = ctx_.captureOpen();
  std::set<CUcontext> busy;  // still running patched kernels: left enabled (see below)
  if (!capturing)
    for (CUcontext handle : enabled)
      if (waitForContext(ctx_.driver, handle, kShutdownWait) == ContextWait::TimedOut)
        busy.insert(handle);
  std::lock_guard lock(mutex_);
  if (!started_) return;
  if (capturing && !enabled.empty())
    note("degraded",
         "a stream capture was still open at shutdown: the last SASS counts were not collected");
  if (!busy.empty())
    note("degraded",
         std::to_string(busy.size()) + " context(s) still ran kernels " +
             std::to_string(kShutdownWait.count() / 1000) +
             " s into shutdown: their last SASS counts were not collected, and SASS was "
             "left enabled there (disabling it under running patched kernels is unsafe)");
  for (auto& [handle, c] : contexts_) {
    if (!c.enabled || busy.count(handle)) continue;
    if (!capturing) flushLocked(c);  // a flush needs the kernels done: no wait during a capture
    disableLocked(c);
  }
  if (!busy.empty()) {  // the configuration and the profiler stay for the contexts left enabled
    started_ = false;
    return;
  }
  for (const auto& [device, plan] : plans_) unsetConfig(device);
  plans_.clear();
  if (std::string alternation = scheduler_->describe(30); !alternation.empty() && ctx_.note) {
    ctx_.note("deep_engines", "on", alternation);
  }
  auto deinit = cuptiParams<CUpti_Profiler_DeInitialize_Params>(
      CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
  cupti::cuptiProfilerDeInitialize(&deinit);
  aggregator_.markFlushed();
  started_ = false;  // the final drain() takes every remaining row
}

}  // namespace gpufl::cuda
