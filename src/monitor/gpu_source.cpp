#include "monitor/gpu_source.hpp"

#include <utility>

namespace gpufl::monitor {
namespace {

class NvmlSource final : public GpuSource {
 public:
  NvmlSource(std::string library_path, nvml::SamplerOptions options)
      : sampler_(std::move(library_path), options) {}
  nvml::OpenStatus open() override { return sampler_.open(); }
  const std::vector<nvml::GpuIdentity>& gpus() const override { return sampler_.gpus(); }
  std::vector<GpuSample> sample(int64_t ts_ns) override { return sampler_.sample(ts_ns); }
  std::vector<nvml::ProcessMemory> processes() override { return sampler_.processes(); }
  std::vector<nvml::FieldIssue> takeNewIssues() override { return sampler_.takeNewIssues(); }
  void close() override { sampler_.close(); }

 private:
  nvml::NvmlSampler sampler_;
};

}  // namespace

std::unique_ptr<GpuSource> makeNvmlSource(std::string library_path, nvml::SamplerOptions options) {
  return std::make_unique<NvmlSource>(std::move(library_path), options);
}

}  // namespace gpufl::monitor
