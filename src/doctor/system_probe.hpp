// The real probes of `gpufl doctor`: the driver (libcuda, through the backend's one table), NVML,
// libcupti (through gpufl's own search, src/cuda/cupti_loader.hpp, so the doctor finds the copy a
// traced program would load), /proc for permissions. Loading these libraries starts no GPU work
// except cuInit. Running the probe kernel under each engine is the caller's (the CLI starts
// `gpufl trace`), handed in as `run_engine`.
#pragma once

#include <functional>
#include <string>

#include "doctor/doctor_facts.hpp"

namespace gpufl::doctor {

class SystemProbe : public DoctorProbe {
 public:
  using EngineRunner = std::function<EngineRun(const std::string& engine)>;
  explicit SystemProbe(EngineRunner run_engine) : run_engine_(std::move(run_engine)) {}

  BuildFacts build() override;
  DriverFacts driver() override;
  LibraryFinding nvml() override;
  CuptiFacts cupti() override;
  PermissionFacts permissions() override;
  EngineRun runEngine(const std::string& engine) override { return run_engine_(engine); }

 private:
  EngineRunner run_engine_;
};

// Where a libcupti file came from, in words: "GPUFL_CUPTI_LIB", "GPUFL_CUPTI_DIRS", "the
// nvidia-cuda-cupti 13.0.85 pip wheel" (the version from the wheel's dist-info beside it, when
// there), "the CUDA toolkit", or "the dynamic loader's search path". `cupti_lib` and `cupti_dirs`
// are the values of those variables ("" when unset).
std::string cuptiOrigin(const std::string& file, const std::string& cupti_lib,
                        const std::string& cupti_dirs);

// The nvidia-cuda-cupti version of a libcupti inside that wheel ("13.0.85"), "" for any other file.
std::string cuptiWheelVersion(const std::string& file);

// The version of the pip distribution `dist` ("nvidia_cuda_cupti") installed in `site_packages`,
// read from its dist-info directory's name; "" when there is none.
std::string distVersion(const std::string& site_packages, const std::string& dist);

}  // namespace gpufl::doctor
