// What `gpufl doctor` finds out about a machine, and the seam it finds it through.
//
// The doctor is three steps: probes gather facts (DoctorProbe, this file), diagnose() turns facts
// into verdicts and advice (diagnose.hpp: a pure function), the CLI renders them (text or JSON).
// Tests feed diagnose() facts built by hand (no driver, permission refused, an old CUPTI) and check
// the advice; the real probes (system_probe.hpp) run only on real machines.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpufl::doctor {

// The five engines, in the order the doctor shows them (names as `gpufl trace --engine` takes
// them).
inline constexpr const char* kEngines[] = {"None", "PcSampling", "SassMetrics",
                                           "PcSamplingWithSass", "RangeProfiler"};

// One shared library looked for: where it was found, or why not.
struct LibraryFinding {
  bool found = false;
  std::string path;     // the file the loader mapped (absolute when known)
  std::string origin;   // where it came from, in words ("nvidia-cuda-cupti 13.0.85 (pip wheel)")
  std::string version;  // the library's own version text ("580.95.05"), "" when unknown
  std::string error;    // why it is not loaded ("" when found)
};

// How this gpufl was built.
struct BuildFacts {
  std::string gpufl_version;
  bool cuda_backend = false;  // the CUPTI backend is compiled in
  std::string headers_from;   // where its CUDA headers came from (cmake/GpuflCudaHeaders.cmake)
};

struct GpuFacts {
  std::string name;
  int cc_major = 0, cc_minor = 0;
};

// libcuda.so.1, cuInit and the devices.
struct DriverFacts {
  LibraryFinding library;      // libcuda.so.1
  int cuda_version = 0;        // cuDriverGetVersion: 13000 for CUDA 13.0; 0 unknown
  std::string release;         // driver release, "580.95.05" (NVML or /proc/driver/nvidia/version)
  std::string init_error;      // cuInit's failure in words; "" when it succeeded
  std::vector<GpuFacts> gpus;  // what cuInit found
};

// libcupti: found through gpufl's own search (src/cuda/cupti_loader.hpp).
struct CuptiFacts {
  LibraryFinding library;
  uint32_t api_version = 0;  // cuptiGetVersion: 130001 for CUDA 13.0 Update 1; 0 unknown
  // The nvidia-cuda-cupti wheel's version ("13.5.25") when the library is that wheel's: the version
  // to go by where cuptiGetVersion fails (CUPTI 13.5 answers it only with a driver).
  std::string package_version;
  // Per engine: why this libcupti cannot serve it ("libcupti too old: cuptiSassMetricsSetConfig
  // missing"); absent when it can.
  std::map<std::string, std::string> engine_missing;
};

// Who this process is, and what the driver lets it do with the GPU's counters.
struct PermissionFacts {
  // /proc/driver/nvidia/params RmProfilingAdminOnly (the module option
  // NVreg_RestrictProfilingToAdminUsers): true restricted, false open, nullopt unreadable.
  std::optional<bool> profiling_admin_only;
  bool root = false;           // effective uid 0
  bool cap_sys_admin = false;  // CAP_SYS_ADMIN in the effective set
  std::string container;       // "docker", "podman", "kubernetes", "container"; "" none seen
};

// One engine tried for real: a tiny kernel run under `gpufl trace --engine <engine>`.
struct EngineRun {
  std::string engine;
  bool ran = false;      // the traced probe ran to its end (exit status 0)
  std::string error;     // why it did not ("timed out after 60 s", "exit status 1: ...")
  uint64_t kernels = 0;  // kernel records in its log
  // The last note of each feature in its log: feature -> {status, reason} ("pc_sampling" ->
  // {"off", "cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (...)"}).
  std::map<std::string, std::pair<std::string, std::string>> notes;
};

struct DoctorFacts {
  BuildFacts build;
  DriverFacts driver;
  LibraryFinding nvml;
  CuptiFacts cupti;
  PermissionFacts permissions;
  bool kernels_tried = false;   // the engine runs were attempted (a GPU and a backend were there)
  std::string kernels_skipped;  // why not, when not ("no GPU", "--no-kernel")
  std::vector<EngineRun> runs;  // one per engine, in kEngines order, when tried
};

// Where the facts come from. The real one (system_probe.hpp) loads the libraries and reads /proc;
// tests provide their own.
class DoctorProbe {
 public:
  virtual ~DoctorProbe() = default;
  virtual BuildFacts build() = 0;
  virtual DriverFacts driver() = 0;
  virtual LibraryFinding nvml() = 0;
  virtual CuptiFacts cupti() = 0;
  virtual PermissionFacts permissions() = 0;
  // Runs the tiny kernel under `engine`; only called when the driver found a GPU.
  virtual EngineRun runEngine(const std::string& engine) = 0;
};

// Asks `probe` for everything; the engine runs only when `run_kernels`, the backend is built and
// the driver found at least one GPU (otherwise kernels_skipped says which was missing).
DoctorFacts gatherFacts(DoctorProbe& probe, bool run_kernels);

}  // namespace gpufl::doctor
