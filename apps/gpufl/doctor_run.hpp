// `gpufl doctor`'s engine runs: the probe kernel (`gpufl doctor --probe-kernel`) under
// `gpufl trace --engine <engine>`, started from this very executable, bounded in time, and its log
// read back for the engine's notes and the kernels it recorded.
#pragma once

#include <string>

#include "doctor/doctor_facts.hpp"

namespace gpufl::cli {

struct DoctorRunOptions {
  std::string work_dir;  // where the probe logs go (one prefix per engine)
  int timeout_s = 60;    // per engine: then the run's process group is killed
};

doctor::EngineRun runDoctorEngine(const std::string& engine, const DoctorRunOptions& options);

// The notes and kernel count of the log under `prefix` (what runDoctorEngine reads back).
void readDoctorLog(const std::string& prefix, doctor::EngineRun& run);

}  // namespace gpufl::cli
