#include "cuda/pc_sampling_engine.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "cuda/cupti_api.hpp"

namespace gpufl::cuda {
namespace {

constexpr int kMaxReadsPerCollect = 64;

uint64_t envNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (end && *end == '\0') ? n : fallback;
}

CUpti_PCSamplingConfigurationInfo attribute(CUpti_PCSamplingConfigurationAttributeType type) {
  CUpti_PCSamplingConfigurationInfo info{};
  info.attributeType = type;
  return info;
}

}  // namespace

PcSamplingOptions PcSamplingOptions::fromEnv(bool light) {
  PcSamplingOptions o;
  if (light) o.period = 16;
  o.period = static_cast<uint32_t>(envNumber("GPUFL_PC_SAMPLING_PERIOD", o.period));
  if (o.period < 5) o.period = 5;  // CUPTI's range: 5..31
  if (o.period > 31) o.period = 31;
  o.hardware_buffer_bytes =
      envNumber("GPUFL_PC_SAMPLING_HW_BUFFER_MB", o.hardware_buffer_bytes >> 20) << 20;
  o.scratch_buffer_bytes = envNumber("GPUFL_PC_SAMPLING_SCRATCH_MB", o.scratch_buffer_bytes >> 20)
                           << 20;
  return o;
}

void PcSampleAggregator::add(uint64_t crc, const std::string& function, uint64_t pc,
                             const std::string& stall, uint64_t n) {
  if (n != 0 && !stall.empty()) rows_[{function, crc, pc, stall}] += n;
}

std::vector<PcSampleAggregator::Row> PcSampleAggregator::take() {
  std::vector<Row> out;
  out.reserve(rows_.size());
  for (auto& [key, count] : rows_) {
    out.push_back({std::get<1>(key), std::get<0>(key), std::get<2>(key), std::get<3>(key), count});
  }
  rows_.clear();
  return out;
}

PatchedSamples::Result PatchedSamples::take() {
  Result result;
  std::string last_left_out;
  for (PcSampleAggregator::Row& row : patched_.take()) {  // sorted by function
    if (clean_.count(row.function)) {
      result.left_out_samples += row.count;
      if (result.left_out_functions == 0 || last_left_out != row.function) {
        ++result.left_out_functions;
        last_left_out = row.function;
      }
      continue;
    }
    if (result.kept_functions.empty() || result.kept_functions.back() != row.function)
      result.kept_functions.push_back(row.function);
    result.kept.push_back(std::move(row));
  }
  return result;
}

void PcSamplingEngine::Buffer::init(size_t pcs_count, size_t reason_count) {
  pcs.assign(pcs_count, CUpti_PCSamplingPCData{});
  reasons.assign(pcs_count * reason_count, CUpti_PCSamplingStallReason{});
  data = CUpti_PCSamplingData{};
  data.size = sizeof(CUpti_PCSamplingData);
  data.collectNumPcs = pcs_count;
  data.pPcData = pcs.data();
  rearm(reason_count);
}

void PcSamplingEngine::Buffer::rearm(size_t reason_count) {
  for (size_t i = 0; i < pcs.size(); ++i) {
    pcs[i].size = sizeof(CUpti_PCSamplingPCData);
    pcs[i].stallReasonCount = reason_count;
    pcs[i].stallReason = &reasons[i * reason_count];
  }
  data.totalNumPcs = 0;
}

PcSamplingEngine::PcSamplingEngine(std::shared_ptr<LaunchScheduler> scheduler,
                                   std::shared_ptr<CubinStore> cubins, PcSamplingOptions options)
    : scheduler_(std::move(scheduler)), cubins_(std::move(cubins)), options_(options) {}

PcSamplingEngine::~PcSamplingEngine() = default;

void PcSamplingEngine::note(const std::string& status, const std::string& reason) {
  if (ctx_.note) ctx_.note("pc_sampling", status, reason);
}

bool PcSamplingEngine::start(const EngineContext& ctx) {
  ctx_ = ctx;
  std::string why;
  if (!deepCapableGpu(ctx_.driver, ctx_.driver_error, &why)) {
    note("off", why);
    return false;
  }
  if (!cuptiLibrary().has(CuptiFeature::PcSampling, &why)) {
    note("off", why);
    return false;
  }
  started_ = true;
  note("on", "continuous, period 2^" + std::to_string(options_.period) +
                 " cycles, hardware buffer " +
                 std::to_string(options_.hardware_buffer_bytes >> 20) + " MiB" +
                 (alternate() ? "; paused during the launches SASS metrics instrument" : "") +
                 (cubins_ ? "" : "; no SASS text or source lines (light preset: no cubins kept)"));
  return true;
}

CUptiResult PcSamplingEngine::configureLocked(Context& c, std::string* refused) {
  std::vector<CUpti_PCSamplingConfigurationInfo> config;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE));
  config.back().attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
  config.back().attributeData.samplingPeriodData.samplingPeriod = options_.period;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE));
  config.back().attributeData.scratchBufferSizeData.scratchBufferSize =
      options_.scratch_buffer_bytes;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE));
  config.back().attributeData.hardwareBufferSizeData.hardwareBufferSize =
      options_.hardware_buffer_bytes;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
  config.back().attributeData.enableStartStopControlData.enableStartStopControl =
      alternate() ? 1 : 0;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT));
  config.back().attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
  config.back().attributeData.samplingDataBufferData.samplingDataBuffer = &c.staging->data;
  config.push_back(
      attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN));
  config.back().attributeData.workerThreadPeriodicSleepSpanData.workerThreadPeriodicSleepSpan =
      options_.worker_sleep_ms;
  auto set = cuptiParams<CUpti_PCSamplingConfigurationInfoParams>(
      CUpti_PCSamplingConfigurationInfoParamsSize);
  set.ctx = c.handle;
  set.numAttributes = config.size();
  set.pPCSamplingConfigurationInfo = config.data();
  const CUptiResult r = cupti::cuptiPCSamplingSetConfigurationAttribute(&set);
  for (const auto& a : config)  // CUPTI flags the attribute it refused
    if (r != CUPTI_SUCCESS && a.attributeStatus != CUPTI_SUCCESS)
      *refused += " attribute " + std::to_string(a.attributeType);
  return r;
}

bool PcSamplingEngine::enableLocked(CUcontext context) {
  uint32_t device = 0;
  if (cupti::cuptiGetDeviceId(context, &device) == CUPTI_SUCCESS) {
    auto& claim = claims_[device];
    if (!claim) claim = std::make_unique<GpuClaim>();
    std::string why;
    if (!claim->claim("pc_sampling", gpuBusId(ctx_.driver, device), &why)) {
      note("off", "the GPU samples one process at a time and " + why +
                      ": this process's kernels are traced without stall samples");
      contexts_[context] = nullptr;  // remembered: no retry on every launch
      return false;
    }
  }
  auto c = std::make_unique<Context>();
  c->handle = context;
  auto enable = cuptiParams<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize);
  enable.ctx = context;
  CUptiResult r = cupti::cuptiPCSamplingEnable(&enable);
  auto fail = [&](const std::string& call, CUptiResult result) {
    note("off", cuptiError(call, result) +
                    (isPrivilegeError(result) ? std::string("; ") + kPrivilegeHint : ""));
    contexts_[context] = nullptr;  // remembered as failed: no retry on every launch
    return false;
  };
  if (r != CUPTI_SUCCESS) return fail("cuptiPCSamplingEnable", r);
  c->enabled = true;
  auto count = cuptiParams<CUpti_PCSamplingGetNumStallReasonsParams>(
      CUpti_PCSamplingGetNumStallReasonsParamsSize);
  count.ctx = context;
  count.numStallReasons = &c->reason_count;
  if (r = cupti::cuptiPCSamplingGetNumStallReasons(&count);
      r != CUPTI_SUCCESS || c->reason_count == 0) {
    disableLocked(*c);
    return fail("cuptiPCSamplingGetNumStallReasons", r);
  }
  std::vector<uint32_t> indices(c->reason_count);
  std::vector<std::vector<char>> storage(c->reason_count,
                                         std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> names;
  for (auto& s : storage) names.push_back(s.data());
  auto get =
      cuptiParams<CUpti_PCSamplingGetStallReasonsParams>(CUpti_PCSamplingGetStallReasonsParamsSize);
  get.ctx = context;
  get.numStallReasons = c->reason_count;
  get.stallReasonIndex = indices.data();
  get.stallReasons = names.data();
  if (r = cupti::cuptiPCSamplingGetStallReasons(&get); r != CUPTI_SUCCESS) {
    disableLocked(*c);
    return fail("cuptiPCSamplingGetStallReasons", r);
  }
  c->reasons = StallReasonTable(indices, std::vector<std::string>(names.begin(), names.end()));
  c->staging = std::make_unique<Buffer>();
  c->user = std::make_unique<Buffer>();
  c->staging->init(options_.pcs_per_read, c->reason_count);
  c->user->init(options_.pcs_per_read, c->reason_count);

  std::string refused;
  if (r = configureLocked(*c, &refused); r != CUPTI_SUCCESS) {
    disableLocked(*c);
    return fail("cuptiPCSamplingSetConfigurationAttribute" + refused, r);
  }
  c->sampling = !alternate();  // continuous mode samples from Enable on
  contexts_[context] = std::move(c);
  return true;
}

void PcSamplingEngine::onContextCreated(CUcontext context, uint32_t) {
  std::lock_guard lock(mutex_);
  if (started_ && !contexts_.count(context)) enableLocked(context);
}

void PcSamplingEngine::onContextDestroying(CUcontext context) {
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(context);
  if (it == contexts_.end()) return;
  if (it->second) {
    collectLocked(*it->second);
    disableLocked(*it->second);
  }
  contexts_.erase(it);
}

void PcSamplingEngine::onModuleLoaded(CUcontext, const void* cubin, size_t bytes) {
  if (cubins_) cubins_->add(cubin, bytes);
}

bool PcSamplingEngine::launchMustRunAlone(const LaunchSite& launch) {
  if (!started_ || launch.captured) return false;
  const DeepData data = alternate() && launch.symbol != nullptr && !launch.is_graph
                            ? scheduler_->decide(launch.correlation_id, launch.symbol)
                            : DeepData::None;
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(launch.context);
  if (it == contexts_.end() || !it->second) return false;
  const Context& c = *it->second;
  if (c.restart_pending) return true;
  if (!alternate()) return false;
  const bool patched = data == DeepData::Both;
  const bool sample = patched || !hasSass(data);
  return sample != c.sampling || patched != c.patched;
}

void PcSamplingEngine::onLaunchEnter(const LaunchSite& launch) {
  if (!started_ || launch.captured) return;
  std::unique_lock lock(mutex_);
  auto it = contexts_.find(launch.context);
  if (it == contexts_.end() && launch.context != nullptr) {  // created before gpufl started
    enableLocked(launch.context);
    it = contexts_.find(launch.context);
  }
  if (it == contexts_.end() || !it->second) return;
  Context& c = *it->second;
  if (!alternate()) {
    if (c.restart_pending) settleUnlocked(lock, launch.context, c.sampling, c.patched);
    return;
  }
  // Alternate mode: sample every launch except those SASS alone instruments (patched code would
  // bias the stall reasons); a function's first launch has both, its samples collected apart. The
  // waits keep patched kernels out of the clean samples; they happen only around the first
  // deep_launches launches of each function.
  const DeepData data = launch.symbol != nullptr && !launch.is_graph
                            ? scheduler_->decide(launch.correlation_id, launch.symbol)
                            : DeepData::None;
  const bool patched = data == DeepData::Both;
  const bool sample = patched || !hasSass(data);
  if (sample != c.sampling || patched != c.patched || c.restart_pending)
    settleUnlocked(lock, launch.context, sample, patched);
}

void PcSamplingEngine::settleUnlocked(std::unique_lock<std::mutex>& lock, CUcontext handle,
                                      bool sample, bool patched) {
  if (ctx_.captureOpen()) return;
  if (ctx_.gate != nullptr && ctx_.gate->held() == LaunchGate::Hold::Shared) {
    lock.unlock();  // needed after launchMustRunAlone looked (an overflow meanwhile): run alone
    ctx_.gate->upgrade();
    lock.lock();
  }
  auto it = contexts_.find(handle);
  if (it == contexts_.end() || !it->second) return;
  const auto limit = it->second->gpu_busy ? std::chrono::milliseconds(0) : kLaunchPathWait;
  lock.unlock();
  const ContextWait waited = waitForContext(ctx_.driver, handle, limit);
  lock.lock();
  it = contexts_.find(handle);
  if (it == contexts_.end() || !it->second || ctx_.captureOpen()) return;
  Context& c = *it->second;
  c.gpu_busy = waited == ContextWait::TimedOut;
  if (c.gpu_busy) {  // switching now would mix phases: a later launch settles
    if (noted_.insert("busy").second)
      note("degraded", "the GPU was still busy " + std::to_string(kLaunchPathWait.count()) +
                           " ms after a sampling phase should have ended (a long kernel, or one "
                           "waiting for the host): the switch waited for it to be idle");
    return;
  }
  if (c.restart_pending) restartLocked(c);
  if (alternate() && (sample != c.sampling || patched != c.patched))
    switchPhaseLocked(c, sample, patched);
}

void PcSamplingEngine::switchPhaseLocked(Context& c, bool sample, bool patched) {
  if (c.sampling) {
    auto stop = cuptiParams<CUpti_PCSamplingStopParams>(CUpti_PCSamplingStopParamsSize);
    stop.ctx = c.handle;
    cupti::cuptiPCSamplingStop(&stop);
    c.sampling = false;
  }
  if (patched != c.patched) {
    collectLocked(c);  // what was sampled so far belongs to the phase that ends here
    c.patched = patched;
  }
  if (sample) startLocked(c);
}

void PcSamplingEngine::startLocked(Context& c) {
  auto start = cuptiParams<CUpti_PCSamplingStartParams>(CUpti_PCSamplingStartParamsSize);
  start.ctx = c.handle;
  if (CUptiResult r = cupti::cuptiPCSamplingStart(&start); r == CUPTI_SUCCESS) {
    c.sampling = true;
  } else if (noted_.insert("start").second) {
    note("degraded", cuptiError("cuptiPCSamplingStart", r));
  }
}

void PcSamplingEngine::collectLocked(Context& c) {
  if (!c.enabled) return;
  for (int read = 0; read < kMaxReadsPerCollect; ++read) {
    c.user->rearm(c.reason_count);
    auto get = cuptiParams<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize);
    get.ctx = c.handle;
    get.pcSamplingData = &c.user->data;
    CUptiResult r = cupti::cuptiPCSamplingGetData(&get);
    const CUpti_PCSamplingData& d = c.user->data;
    if (r == CUPTI_ERROR_OUT_OF_MEMORY || d.hardwareBufferFull) {
      ++buffer_full_;
      if (noted_.insert("full").second) {
        note("degraded",
             "hardware buffer full, samples lost: raise GPUFL_PC_SAMPLING_HW_BUFFER_MB or "
             "GPUFL_PC_SAMPLING_PERIOD");
      }
      // With start/stop control (alternate mode) every later read failed too after an overflow
      // (H200, a 432 ms SASS-patched 2048^3 matmul sampled at 2^12): start afresh.
      if (r == CUPTI_ERROR_OUT_OF_MEMORY) {
        c.restart_pending = true;
        return;
      }
    } else if (r != CUPTI_SUCCESS) {
      if (noted_.insert("get").second) note("degraded", cuptiError("cuptiPCSamplingGetData", r));
      return;
    }
    total_samples_ += d.totalSamples;
    dropped_samples_ += d.droppedSamples;
    for (size_t i = 0; i < d.totalNumPcs && i < c.user->pcs.size(); ++i) {
      const CUpti_PCSamplingPCData& pc = c.user->pcs[i];
      // CUPTI owns functionName (shared with other records); it is copied, never freed here.
      const std::string function = pc.functionName ? pc.functionName : "";
      if (!c.patched && alternate()) patched_.sawClean(function);
      for (size_t k = 0; k < pc.stallReasonCount && k < c.reason_count; ++k) {
        const std::string& stall = c.reasons.name(pc.stallReason[k].pcSamplingStallReasonIndex);
        if (c.patched) {
          patched_.add(pc.cubinCrc, function, pc.pcOffset, stall, pc.stallReason[k].samples);
        } else {
          aggregator_.add(pc.cubinCrc, function, pc.pcOffset, stall, pc.stallReason[k].samples);
        }
      }
    }
    if (d.totalNumPcs == 0 || d.remainingNumPcs == 0) return;
  }
}

void PcSamplingEngine::restartLocked(Context& c) {
  c.restart_pending = false;
  const bool was_sampling = c.sampling;
  disableLocked(c);
  auto enable = cuptiParams<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize);
  enable.ctx = c.handle;
  std::string refused;
  CUptiResult r = cupti::cuptiPCSamplingEnable(&enable);
  if (r == CUPTI_SUCCESS) {
    c.enabled = true;
    r = configureLocked(c, &refused);
  }
  if (r != CUPTI_SUCCESS) {
    disableLocked(c);
    note("degraded",
         "after a hardware buffer overflow, PC sampling could not restart on a "
         "context: " +
             cuptiError("cuptiPCSamplingEnable/SetConfigurationAttribute" + refused, r));
    return;
  }
  ++restarts_;
  c.sampling = !alternate();  // continuous mode samples from Enable on
  if (was_sampling && alternate()) startLocked(c);
}

void PcSamplingEngine::disableLocked(Context& c) {
  if (!c.enabled) return;
  auto disable = cuptiParams<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize);
  disable.ctx = c.handle;
  cupti::cuptiPCSamplingDisable(&disable);
  c.enabled = false;
  c.sampling = false;
}

void PcSamplingEngine::drain(EventVisitor& out) {
  std::vector<PcSampleAggregator::Row> rows, patched;
  {
    std::lock_guard lock(mutex_);
    for (auto& [handle, c] : contexts_)
      if (c) collectLocked(*c);
    const int64_t now = ctx_.now_ns ? ctx_.now_ns() : 0;
    if (started_ && now - last_emit_ns_ < options_.emit_interval_ns) return;
    last_emit_ns_ = now;
    rows = aggregator_.take();
    if (!started_) patched.swap(patched_kept_);  // decided at stop()
  }
  emit(rows, false, out);
  emit(patched, true, out);
}

void PcSamplingEngine::notePatchedLocked() {
  PatchedSamples::Result patched = patched_.take();  // every clean sample has been collected
  patched_kept_ = std::move(patched.kept);
  if (patched.kept_functions.empty() && patched.left_out_samples == 0) return;
  std::string kept;
  for (const std::string& f : patched.kept_functions) kept += (kept.empty() ? "" : ", ") + f;
  if (kept.size() > 600) kept = kept.substr(0, 600) + "...";
  note("on", "stall samples of SASS-patched launches (each kernel's first): kept for " +
                 std::to_string(patched.kept_functions.size()) +
                 " kernel(s) with no other sampled launch, their stalls biased toward wait" +
                 (kept.empty() ? "" : " (" + kept + ")") + "; left out for " +
                 std::to_string(patched.left_out_functions) + " kernel(s) with clean samples (" +
                 std::to_string(patched.left_out_samples) + " samples)");
}

void PcSamplingEngine::emit(const std::vector<PcSampleAggregator::Row>& rows, bool patched,
                            EventVisitor& out) {
  if (cubins_) {
    std::vector<std::pair<uint64_t, std::string>> functions;
    for (const PcSampleAggregator::Row& row : rows)
      if (functions.empty() || functions.back().second != row.function ||
          functions.back().first != row.crc)
        functions.emplace_back(row.crc, row.function);
    cubins_->prefetch(functions);
  }
  SassInstruction instruction;  // rows come sorted by (function, crc, pc): look each PC up once
  const PcSampleAggregator::Row* previous = nullptr;
  for (const PcSampleAggregator::Row& row : rows) {
    if (cubins_ && (previous == nullptr || previous->pc != row.pc || previous->crc != row.crc ||
                    previous->function != row.function)) {
      instruction = cubins_->instruction(row.crc, row.function, row.pc);
    }
    previous = &row;
    PcSample s;
    s.func = row.function;
    s.pc = row.pc;
    s.stall = row.stall;
    s.count = row.count;
    s.sass = instruction.text;
    s.source = instruction.source;
    s.patched = patched;
    out.onPcSample(s);
  }
}

void PcSamplingEngine::stop() {
  if (!started_) return;
  std::vector<CUcontext> handles;
  {
    std::lock_guard lock(mutex_);
    for (auto& [handle, c] : contexts_)
      if (c) handles.push_back(handle);
  }
  // Unlocked (launch callbacks take mutex_), and not while a capture is open.
  if (!ctx_.captureOpen())
    for (CUcontext handle : handles) waitForContext(ctx_.driver, handle, kShutdownWait);
  // CUPTI decodes on its worker threads every worker_sleep_ms: let it catch up before the last
  // read.
  if (!handles.empty())
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * options_.worker_sleep_ms + 20));
  std::lock_guard lock(mutex_);
  for (auto& [handle, c] : contexts_) {
    if (!c) continue;
    collectLocked(*c);
    disableLocked(*c);
  }
  claims_.clear();   // another process may sample these GPUs now
  started_ = false;  // the final drain() writes everything
  notePatchedLocked();
  note("on", std::to_string(total_samples_) + " samples, " + std::to_string(dropped_samples_) +
                 " dropped by the hardware, hardware buffer full " + std::to_string(buffer_full_) +
                 " times, restarted after an overflow " + std::to_string(restarts_) + " times");
}

}  // namespace gpufl::cuda
