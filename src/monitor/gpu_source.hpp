// Where the monitor's GPU readings come from: NVML (nvml::NvmlSampler) on a real host, or a script
// of readings (scripted_source.hpp) so that tests on machines without a GPU can check every metric.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/events.hpp"
#include "nvml/nvml_sampler.hpp"

namespace gpufl::monitor {

// Same contract as nvml::NvmlSampler: open() once, then sample() and processes() once per tick, all
// on the sampler thread.
class GpuSource {
 public:
  virtual ~GpuSource() = default;
  virtual nvml::OpenStatus open() = 0;
  virtual const std::vector<nvml::GpuIdentity>& gpus() const = 0;
  virtual std::vector<GpuSample> sample(int64_t ts_ns) = 0;
  virtual std::vector<nvml::ProcessMemory> processes() = 0;
  virtual std::vector<nvml::FieldIssue> takeNewIssues() = 0;
  virtual void close() = 0;
};

std::unique_ptr<GpuSource> makeNvmlSource(std::string library_path, nvml::SamplerOptions options);

}  // namespace gpufl::monitor
