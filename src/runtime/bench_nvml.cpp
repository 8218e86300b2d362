// The CUDA bench device with NVML's eyes: SM clock readings, the max SM clock and throttle reasons
// around the repetitions (core::BenchDevice's optional hooks), so gpufl::bench warns about
// throttled clocks as the Python harness does. Without NVML the CUDA device is used as it is.
#include <cstdlib>
#include <sstream>

#include "nvml/nvml_api.hpp"
#include "nvml/nvml_sampler.hpp"
#include "runtime/bench_loop.hpp"

namespace gpufl::runtime {
namespace {

constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

class NvmlWatchedDevice final : public BenchDevice {
 public:
  NvmlWatchedDevice(std::unique_ptr<BenchDevice> inner, std::unique_ptr<nvml::Library> lib,
                    nvml::Device dev)
      : inner_(std::move(inner)), lib_(std::move(lib)), dev_(dev) {}
  ~NvmlWatchedDevice() override { lib_->api().shutdown(); }

  double timed(const std::function<void()>& work, std::string* error) override {
    return inner_->timed(work, error);
  }
  bool capture(const std::function<void()>& fn, int calls, std::string* error) override {
    return inner_->capture(fn, calls, error);
  }
  double timedReplay(std::string* error) override { return inner_->timedReplay(error); }
  bool flushL2(std::string* error) override { return inner_->flushL2(error); }
  double launchOverheadNs() override { return inner_->launchOverheadNs(); }
  double peakTflops(const std::string& dtype) override { return inner_->peakTflops(dtype); }
  double peakGbps() override { return inner_->peakGbps(); }
  uint32_t deviceIndex() override { return inner_->deviceIndex(); }

  std::optional<int> smClockMhz() override { return clock(lib_->api().deviceGetClockInfo); }
  std::optional<int> smClockLimitMhz() override { return clock(lib_->api().deviceGetMaxClockInfo); }
  std::vector<std::string> throttleReasons() override {
    unsigned long long mask = 0;
    const auto get = lib_->api().deviceGetCurrentClocksEventReasons;
    if (!get || get(dev_, &mask) != nvml::kSuccess) return {};
    return nvml::throttleReasonNames(mask);
  }

 private:
  std::optional<int> clock(nvml::Return (*get)(nvml::Device, int, unsigned int*)) {
    unsigned int mhz = 0;
    if (!get || get(dev_, kNvmlClockSm, &mhz) != nvml::kSuccess) return std::nullopt;
    return static_cast<int>(mhz);
  }

  std::unique_ptr<BenchDevice> inner_;
  std::unique_ptr<nvml::Library> lib_;
  nvml::Device dev_;
};

// NVML numbers every GPU; CUDA only the visible ones: map through CUDA_VISIBLE_DEVICES when it
// lists indexes.
unsigned nvmlIndex(uint32_t cuda_index) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!visible) return cuda_index;
  std::stringstream list(visible);
  std::string item;
  for (uint32_t i = 0; std::getline(list, item, ','); ++i) {
    if (i != cuda_index) continue;
    char* end = nullptr;
    const unsigned long v = std::strtoul(item.c_str(), &end, 10);
    return end != item.c_str() && *end == '\0' ? static_cast<unsigned>(v) : cuda_index;
  }
  return cuda_index;
}

}  // namespace

std::unique_ptr<BenchDevice> watchWithNvml(std::unique_ptr<BenchDevice> device) {
  if (!device) return device;
  std::string reason;
  auto lib = nvml::Library::open(nvml::kLibraryName, &reason);
  if (!lib || !lib->api().init || lib->api().init() != nvml::kSuccess) return device;
  nvml::Device handle = nullptr;
  if (lib->api().deviceGetHandleByIndex(nvmlIndex(device->deviceIndex()), &handle) !=
      nvml::kSuccess) {
    lib->api().shutdown();
    return device;
  }
  return std::make_unique<NvmlWatchedDevice>(std::move(device), std::move(lib), handle);
}

}  // namespace gpufl::runtime
