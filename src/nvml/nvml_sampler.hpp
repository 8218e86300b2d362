// GPU samples from NVML: utilization, memory, temperature, power, energy, clocks, PCIe throughput,
// clock-event (throttle) reasons, one GpuSample per GPU per call.
//
// A field whose NVML call fails is left empty (never 0). Each failing (GPU, field) is reported once
// through takeNewIssues() so the session can write a note ("pcie throughput not supported on GPU
// 0"); a field NVML says is not supported is not asked again. GPU indices are NVML's, which follow
// PCI bus order and may differ from CUDA's device order: match GPUs by UUID (gpus()).
//
// Not thread-safe: open(), sample() and close() run on one thread (the sampler thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "nvml/nvml_api.hpp"

namespace gpufl::nvml {

// Names of the bits of an NVML clocks-event (throttle) reason mask, lowest bit first; unknown bits
// read as "unknown_0x<bit>".
std::vector<std::string> throttleReasonNames(uint64_t mask);

struct OpenStatus {
  bool ok = false;
  std::string reason;  // why sampling is off; empty when ok
};

struct GpuIdentity {
  uint32_t index = 0;  // NVML index
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-...", as nvidia-smi and CUDA print it
};

// One (GPU, field) that could not be read.
struct FieldIssue {
  uint32_t gpu = 0;
  std::string field;  // "utilization", "memory", "temperature", "power", "power_limit", "energy",
                      // "clock_sm", "clock_mem", "clock_gfx", "pcie_rx", "pcie_tx", "throttle",
                      // "processes"
  Return code = kSuccess;  // kErrorFunctionNotFound when this NVML lacks the function
  std::string nvml_error;  // NVML's text for `code`
  bool permanent = false;  // not supported: the field is no longer asked for on this GPU

  // "pcie rx throughput not supported on GPU 0 (NVML: Not Supported)"
  std::string describe() const;
};

// GPU memory one process holds on one GPU (compute processes, as nvidia-smi lists them).
struct ProcessMemory {
  uint32_t gpu = 0;  // NVML index
  uint32_t pid = 0;  // in NVML's pid namespace (the host's, for a monitor in a container)
  std::optional<uint64_t>
      used_bytes;  // empty when NVML cannot tell (e.g. under some vGPU/MIG setups)
};

struct SamplerOptions {
  // nvmlDeviceGetPcieThroughput measures over 20 ms per counter: two counters cost ~40 ms per GPU
  // per sample.
  bool pcie_throughput = true;
  // So PCIe is read on every Nth sample only (the first included): at the default 100 ms period
  // that is once a second, and the sampler thread is not kept busy 40% of the time by two slow
  // calls.
  int pcie_every_n_samples = 10;
  // nvmlDeviceGetTotalEnergyConsumption costs ~4 ms of CPU per call on the H200 (measured
  // 2026-12-02, every other field read here costs under 7 us): read every sample at 100 ms it was
  // 4% of a core in the traced process, and 0.4 points of `gpufl monitor`'s 0.58% at 1 Hz. So the
  // counter is read on the first sample and then once per period (by sample timestamps); the report
  // integrates power over the time after the last reading (report/system_stats.cpp).
  int64_t energy_period_ns = 10'000'000'000;
};

class NvmlSampler {
 public:
  // Loads `library_path` with dlopen in open().
  explicit NvmlSampler(std::string library_path = kLibraryName, SamplerOptions options = {});
  // Uses an already filled table (tests, or a caller that loaded NVML itself); `api` must outlive
  // the sampler.
  explicit NvmlSampler(const Api& api, SamplerOptions options = {});
  ~NvmlSampler();  // close()
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;

  // Loads and initialises NVML and enumerates the GPUs. Fails with a reason when the library is
  // missing, when nvmlInit fails (NVML's error text), or when there is no GPU.
  OpenStatus open();
  bool isOpen() const { return open_; }
  const std::vector<GpuIdentity>& gpus() const { return gpus_; }
  // The open library's table and each GPU's handle (in gpus() order), for the Xid watcher.
  const Api* api() const { return open_ ? api_ : nullptr; }
  std::vector<Device> handles() const;

  // One sample per GPU with timestamp ts_ns (sid left empty for the writer). Empty when not open.
  std::vector<GpuSample> sample(int64_t ts_ns);

  // The compute processes on every GPU and the memory each holds. A GPU whose list cannot be read
  // contributes nothing and is reported once as the field "processes".
  std::vector<ProcessMemory> processes();

  // Issues found since the previous call: each (GPU, field) once until it is read successfully
  // again.
  std::vector<FieldIssue> takeNewIssues();

  // nvmlShutdown and dlclose; idempotent.
  void close();

 private:
  struct FieldState {
    bool reported = false;
    bool disabled = false;
  };
  struct Gpu {
    GpuIdentity id;
    Device handle = nullptr;
    std::vector<FieldState> fields;
  };

  // Runs one NVML call for `field`; false (and the issue recorded) when it fails.
  template <typename Call>
  bool read(Gpu& gpu, int field, bool available, Call&& call);

  std::string library_path_;
  SamplerOptions options_;
  uint64_t samples_taken_ = 0;
  std::optional<int64_t> last_energy_ts_ns_;  // when the energy counter was last asked for
  std::unique_ptr<Library> library_;
  const Api* api_ = nullptr;
  bool open_ = false;
  std::vector<Gpu> gpu_state_;
  std::vector<GpuIdentity> gpus_;
  std::vector<FieldIssue> new_issues_;
};

}  // namespace gpufl::nvml
