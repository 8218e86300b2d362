#include "nvml/nvml_sampler.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <utility>

namespace gpufl::nvml {
namespace {

enum FieldId {
  kUtil,
  kMem,
  kTemp,
  kPower,
  kPowerLimit,
  kEnergy,
  kClkSm,
  kClkMem,
  kClkGfx,
  kPcieRx,
  kPcieTx,
  kThrottle,
  kProcesses,
  kFieldCount
};

struct FieldName {
  const char* key;    // FieldIssue::field
  const char* human;  // for notes
};
constexpr FieldName kFields[kFieldCount] = {
    {"utilization", "utilization"},    {"memory", "memory info"},
    {"temperature", "temperature"},    {"power", "power usage"},
    {"power_limit", "power limit"},    {"energy", "energy counter"},
    {"clock_sm", "SM clock"},          {"clock_mem", "memory clock"},
    {"clock_gfx", "graphics clock"},   {"pcie_rx", "pcie rx throughput"},
    {"pcie_tx", "pcie tx throughput"}, {"throttle", "clock event (throttle) reasons"},
    {"processes", "process list"},
};

// Bit names of nvmlClocksEventReason* (nvml.h), lowest bit first.
constexpr const char* kThrottleBits[] = {
    "gpu_idle",                     // 0x1
    "applications_clocks_setting",  // 0x2
    "sw_power_cap",                 // 0x4
    "hw_slowdown",                  // 0x8
    "sync_boost",                   // 0x10
    "sw_thermal_slowdown",          // 0x20
    "hw_thermal_slowdown",          // 0x40
    "hw_power_brake_slowdown",      // 0x80
    "display_clocks_setting",       // 0x100
    "board_limit",                  // 0x200 (NVML 12.8+)
    "reliability",                  // 0x400 (NVML 12.8+)
};

std::string cString(const char* buf, size_t size) {
  size_t n = 0;
  while (n < size && buf[n] != '\0') ++n;
  return std::string(buf, n);
}

}  // namespace

std::vector<std::string> throttleReasonNames(uint64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    if (!(mask & (uint64_t{1} << bit))) continue;
    if (bit < static_cast<int>(std::size(kThrottleBits))) {
      names.emplace_back(kThrottleBits[bit]);
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "unknown_0x%llx",
                    static_cast<unsigned long long>(uint64_t{1} << bit));
      names.emplace_back(buf);
    }
  }
  return names;
}

std::string FieldIssue::describe() const {
  std::string human = field;
  for (const FieldName& f : kFields) {
    if (field == f.key) human = f.human;
  }
  const char* what = code == kErrorNotSupported       ? "not supported"
                     : code == kErrorFunctionNotFound ? "not available in this NVML version"
                     : code == kErrorNoPermission     ? "not permitted"
                                                      : "could not be read";
  return human + " " + what + " on GPU " + std::to_string(gpu) + " (NVML: " + nvml_error + ")";
}

NvmlSampler::NvmlSampler(std::string library_path, SamplerOptions options)
    : library_path_(std::move(library_path)), options_(options) {}

NvmlSampler::NvmlSampler(const Api& api, SamplerOptions options) : options_(options), api_(&api) {}

NvmlSampler::~NvmlSampler() {
  close();
}

namespace {
// The process that first initialised NVML. A fork()ed child must not call NVML again: the parent's
// sampler thread may have held NVML's locks at the fork, and the child's nvmlInit then waits
// forever (seen on the H200 as a flaky hang of the fork test).
std::atomic<pid_t> g_nvml_pid{0};
}  // namespace

OpenStatus NvmlSampler::open() {
  if (open_) return {true, ""};
  if (pid_t first = g_nvml_pid.load(); first != 0 && first != getpid()) {
    return {false,
            "NVML not used in a fork()ed child of a process that used it (its locks may be held)"};
  }
  if (!api_) {
    std::string reason;
    library_ = Library::open(library_path_, &reason);
    if (!library_) return {false, reason};
    api_ = &library_->api();
  }
  const Api& api = *api_;
  if (!api.init || !api.shutdown || !api.deviceGetCount || !api.deviceGetHandleByIndex) {
    return {false, "NVML not available (required functions missing)"};
  }
  if (Return r = api.init(); r != kSuccess) {
    return {false, "NVML initialisation failed: " + errorText(api, r)};
  }
  pid_t none = 0;
  g_nvml_pid.compare_exchange_strong(none, getpid());
  auto fail = [&](std::string reason) {
    api.shutdown();
    gpu_state_.clear();
    return OpenStatus{false, std::move(reason)};
  };
  unsigned int count = 0;
  if (Return r = api.deviceGetCount(&count); r != kSuccess) {
    return fail("NVML could not count GPUs: " + errorText(api, r));
  }
  if (count == 0) return fail("NVML found no GPU");

  std::string first_error;
  for (unsigned int i = 0; i < count; ++i) {
    Gpu gpu;
    gpu.id.index = i;
    if (Return r = api.deviceGetHandleByIndex(i, &gpu.handle); r != kSuccess) {
      if (first_error.empty()) first_error = "GPU " + std::to_string(i) + ": " + errorText(api, r);
      continue;  // e.g. a GPU without permission (NVML_ERROR_NO_PERMISSION): sample the others
    }
    char buf[kDeviceNameBufferSize] = {};
    if (api.deviceGetName && api.deviceGetName(gpu.handle, buf, sizeof buf) == kSuccess) {
      gpu.id.name = cString(buf, sizeof buf);
    }
    char ubuf[kDeviceUuidBufferSize] = {};
    if (api.deviceGetUuid && api.deviceGetUuid(gpu.handle, ubuf, sizeof ubuf) == kSuccess) {
      gpu.id.uuid = cString(ubuf, sizeof ubuf);
    }
    gpu.fields.assign(kFieldCount, FieldState{});
    if (!options_.pcie_throughput)
      gpu.fields[kPcieRx].disabled = gpu.fields[kPcieTx].disabled = true;
    gpu_state_.push_back(std::move(gpu));
  }
  if (gpu_state_.empty()) return fail("NVML could not open any GPU (" + first_error + ")");
  gpus_.clear();
  for (const Gpu& g : gpu_state_) gpus_.push_back(g.id);
  open_ = true;
  return {true, ""};
}

template <typename Call>
bool NvmlSampler::read(Gpu& gpu, int field, bool available, Call&& call) {
  FieldState& state = gpu.fields[field];
  if (state.disabled) return false;
  Return r = available ? call() : kErrorFunctionNotFound;
  if (r == kSuccess) {
    state.reported = false;  // a later failure is news again
    return true;
  }
  const bool permanent = r == kErrorNotSupported || r == kErrorFunctionNotFound;
  state.disabled = permanent;
  if (!state.reported) {
    state.reported = true;
    std::string text = r == kErrorFunctionNotFound ? "function not found" : errorText(*api_, r);
    new_issues_.push_back({gpu.id.index, kFields[field].key, r, std::move(text), permanent});
  }
  return false;
}

std::vector<GpuSample> NvmlSampler::sample(int64_t ts_ns) {
  std::vector<GpuSample> out;
  if (!open_) return out;
  const Api& api = *api_;
  out.reserve(gpu_state_.size());
  const int every = options_.pcie_every_n_samples > 0 ? options_.pcie_every_n_samples : 1;
  const bool pcie_now = samples_taken_++ % static_cast<uint64_t>(every) == 0;
  const bool energy_now =
      !last_energy_ts_ns_ || ts_ns - *last_energy_ts_ns_ >= options_.energy_period_ns;
  if (energy_now) last_energy_ts_ns_ = ts_ns;
  for (Gpu& gpu : gpu_state_) {
    GpuSample s;
    s.ts_ns = ts_ns;
    s.gpu = gpu.id.index;
    Device d = gpu.handle;
    Utilization util{};
    if (read(gpu, kUtil, api.deviceGetUtilizationRates,
             [&] { return api.deviceGetUtilizationRates(d, &util); })) {
      s.util_gpu = static_cast<int>(util.gpu);
      s.util_mem = static_cast<int>(util.memory);
    }
    // v2 where the driver has it and answers (used without the reservation); else v1, whose
    // failures are the ones recorded: a driver that exports v2 but refuses it keeps memory
    // readings.
    MemoryV2 mem2{};
    mem2.version = kMemoryV2Version;
    if (api.deviceGetMemoryInfoV2 != nullptr && api.deviceGetMemoryInfoV2(d, &mem2) == kSuccess) {
      s.mem_used_bytes = mem2.used;
      s.mem_total_bytes = mem2.total;
    } else {
      Memory mem{};
      if (read(gpu, kMem, api.deviceGetMemoryInfo,
               [&] { return api.deviceGetMemoryInfo(d, &mem); })) {
        s.mem_used_bytes = mem.used;
        s.mem_total_bytes = mem.total;
      }
    }
    unsigned int v = 0;
    if (read(gpu, kTemp, api.deviceGetTemperature,
             [&] { return api.deviceGetTemperature(d, kTemperatureGpu, &v); })) {
      s.temp_c = static_cast<int>(v);
    }
    if (read(gpu, kPower, api.deviceGetPowerUsage, [&] { return api.deviceGetPowerUsage(d, &v); }))
      s.power_mw = v;
    if (read(gpu, kPowerLimit, api.deviceGetEnforcedPowerLimit,
             [&] { return api.deviceGetEnforcedPowerLimit(d, &v); })) {
      s.power_limit_mw = v;
    }
    unsigned long long ull = 0;
    if (energy_now && read(gpu, kEnergy, api.deviceGetTotalEnergyConsumption,
                           [&] { return api.deviceGetTotalEnergyConsumption(d, &ull); })) {
      s.energy_mj = ull;
    }
    auto clock = [&](int field, int type, std::optional<int>& dst) {
      if (read(gpu, field, api.deviceGetClockInfo,
               [&] { return api.deviceGetClockInfo(d, type, &v); })) {
        dst = static_cast<int>(v);
      }
    };
    clock(kClkSm, kClockSm, s.clk_sm);
    clock(kClkMem, kClockMem, s.clk_mem);
    clock(kClkGfx, kClockGraphics, s.clk_gfx);
    if (pcie_now && read(gpu, kPcieRx, api.deviceGetPcieThroughput,
                         [&] { return api.deviceGetPcieThroughput(d, kPcieRxBytes, &v); })) {
      s.pcie_rx_kbps = v;
    }
    if (pcie_now && read(gpu, kPcieTx, api.deviceGetPcieThroughput,
                         [&] { return api.deviceGetPcieThroughput(d, kPcieTxBytes, &v); })) {
      s.pcie_tx_kbps = v;
    }
    if (read(gpu, kThrottle, api.deviceGetCurrentClocksEventReasons,
             [&] { return api.deviceGetCurrentClocksEventReasons(d, &ull); })) {
      s.throttle = ull;
      s.throttle_reasons = throttleReasonNames(ull);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<ProcessMemory> NvmlSampler::processes() {
  std::vector<ProcessMemory> out;
  if (!open_) return out;
  const Api& api = *api_;
  std::vector<ProcessInfo> infos;
  for (Gpu& gpu : gpu_state_) {
    unsigned int count = 0;
    // A busy GPU may gain processes between the calls: grow the array a few times, then give up.
    auto call = [&] {
      Return r = kErrorInsufficientSize;
      for (unsigned int capacity = 16; r == kErrorInsufficientSize && capacity <= 4096;) {
        infos.assign(capacity, ProcessInfo{});
        count = capacity;
        r = api.deviceGetComputeRunningProcesses(gpu.handle, &count, infos.data());
        capacity = std::max(capacity * 2, count + 8);
      }
      return r;
    };
    if (!read(gpu, kProcesses, api.deviceGetComputeRunningProcesses, call)) continue;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
      ProcessMemory p;
      p.gpu = gpu.id.index;
      p.pid = infos[i].pid;
      if (infos[i].usedGpuMemory != kValueNotAvailable) p.used_bytes = infos[i].usedGpuMemory;
      out.push_back(p);
    }
  }
  return out;
}

std::vector<FieldIssue> NvmlSampler::takeNewIssues() {
  return std::exchange(new_issues_, {});
}

void NvmlSampler::close() {
  if (open_ && api_ && api_->shutdown) api_->shutdown();
  open_ = false;
  gpu_state_.clear();
  gpus_.clear();
  if (library_) {
    library_.reset();
    api_ = nullptr;
  }
}

std::vector<Device> NvmlSampler::handles() const {
  std::vector<Device> out;
  for (const Gpu& g : gpu_state_) out.push_back(g.handle);
  return out;
}

}  // namespace gpufl::nvml
