#include "doctor/diagnose.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpufl::doctor {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A machine as a probe would find it; each test changes what it is about.
class FakeProbe : public DoctorProbe {
 public:
  BuildFacts build_{"0.1.0", true, "NVIDIA pip packages (CUDA 13000, CUPTI API 130001)"};
  DriverFacts driver_;
  LibraryFinding nvml_{true, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.95.05",
                       "the NVIDIA driver", "580.95.05", ""};
  CuptiFacts cupti_;
  PermissionFacts permissions_;
  std::map<std::string, EngineRun> runs_;
  int engine_runs = 0;

  FakeProbe() {
    driver_.library = {true, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05", "the NVIDIA driver",
                       "580.95.05", ""};
    driver_.cuda_version = 13000;
    driver_.release = "580.95.05";
    driver_.gpus = {{"NVIDIA H200", 9, 0}};
    cupti_.library = {true, "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13",
                      "the nvidia-cuda-cupti 13.0.85 pip wheel", "130001", ""};
    cupti_.api_version = 130001;
    permissions_.profiling_admin_only = false;
    for (const char* e : kEngines) runs_[e] = workingRun(e);
  }

  static EngineRun workingRun(const std::string& engine) {
    EngineRun r;
    r.engine = engine;
    r.ran = true;
    r.kernels = 3;
    r.notes["cupti_activity"] = {"on", "kernels, memcpy and memset activity"};
    if (engine == "PcSampling" || engine == "PcSamplingWithSass")
      r.notes["pc_sampling"] = {"on", "12 samples"};
    if (engine == "SassMetrics" || engine == "PcSamplingWithSass")
      r.notes["sass_metrics"] = {"on", "3 kernels"};
    if (engine == "RangeProfiler") r.notes["range_profiler"] = {"on", "1 range"};
    return r;
  }

  BuildFacts build() override { return build_; }
  DriverFacts driver() override { return driver_; }
  LibraryFinding nvml() override { return nvml_; }
  CuptiFacts cupti() override { return cupti_; }
  PermissionFacts permissions() override { return permissions_; }
  EngineRun runEngine(const std::string& engine) override {
    ++engine_runs;
    return runs_.at(engine);
  }
};

const EngineVerdict& verdictOf(const Diagnosis& d, const std::string& engine) {
  for (const auto& v : d.engines)
    if (v.engine == engine) return v;
  throw std::runtime_error("no verdict for " + engine);
}

TEST(Doctor, EveryEngineWorksOnAGoodMachine) {
  FakeProbe probe;
  probe.cupti_.api_version = 130401;
  probe.driver_.cuda_version = 13040;
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_EQ(probe.engine_runs, 5);
  ASSERT_EQ(d.engines.size(), 5u);
  for (const auto& v : d.engines)
    EXPECT_EQ(v.verdict, Verdict::Works) << v.engine << ": " << v.reason;
  EXPECT_TRUE(d.problems.empty());
  EXPECT_EQ(d.summary, "every engine works here");
  EXPECT_TRUE(has(verdictOf(d, "PcSamplingWithSass").reason, "sass_metrics on; pc_sampling on"));
}

TEST(Doctor, NoDriverRefusesEveryEngineAndRunsNothing) {
  FakeProbe probe;
  probe.driver_ = DriverFacts{};
  probe.driver_.library.error =
      "no NVIDIA driver (libcuda.so.1 not found: cannot open shared object file)";
  DoctorFacts facts = gatherFacts(probe, true);
  Diagnosis d = diagnose(facts);
  EXPECT_EQ(probe.engine_runs, 0);
  EXPECT_EQ(facts.kernels_skipped, "no NVIDIA driver");
  for (const auto& v : d.engines) {
    EXPECT_EQ(v.verdict, Verdict::Refused) << v.engine;
    EXPECT_TRUE(has(v.reason, "libcuda.so.1 not found")) << v.reason;
    EXPECT_EQ(v.fix, "install the NVIDIA driver");
  }
  EXPECT_TRUE(has(d.summary, "gpufl cannot trace here: no NVIDIA driver")) << d.summary;
}

TEST(Doctor, NoDriverInAContainerAsksForGpusAll) {
  FakeProbe probe;
  probe.driver_ = DriverFacts{};
  probe.permissions_.container = "docker";
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_TRUE(has(verdictOf(d, "None").fix, "--gpus all")) << verdictOf(d, "None").fix;
}

TEST(Doctor, CountersRefusedToAUserSayWhatToChange) {
  FakeProbe probe;
  probe.permissions_ = {true, false, false, ""};
  const std::string refusal =
      "cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (GPU performance counters need "
      "admin "
      "rights)";
  for (const char* e : {"PcSampling", "PcSamplingWithSass"})
    probe.runs_[e].notes["pc_sampling"] = {"off", refusal};
  probe.runs_["SassMetrics"].notes["sass_metrics"] = {
      "off", "cuptiSassMetricsEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"};
  probe.runs_["PcSamplingWithSass"].notes["sass_metrics"] =
      probe.runs_["SassMetrics"].notes["sass_metrics"];
  probe.runs_["RangeProfiler"].notes["range_profiler"] = {"off",
                                                          "cuptiProfilerHostInitialize: "
                                                          "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"};
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_EQ(verdictOf(d, "None").verdict, Verdict::Works);
  for (const char* e : {"PcSampling", "SassMetrics", "PcSamplingWithSass", "RangeProfiler"}) {
    const EngineVerdict& v = verdictOf(d, e);
    EXPECT_EQ(v.verdict, Verdict::Refused) << e;
    EXPECT_TRUE(
        has(v.reason, std::string(e) + " refused: the driver restricts GPU performance counters"))
        << v.reason;
    EXPECT_TRUE(has(v.reason, "not root and lacks CAP_SYS_ADMIN")) << v.reason;
    EXPECT_TRUE(has(v.reason, "NVreg_RestrictProfilingToAdminUsers=0")) << v.reason;
    EXPECT_TRUE(has(v.reason, "sudo -E")) << v.reason;
  }
  EXPECT_TRUE(has(d.summary, "tracing works; 4 engine(s) refused, first PcSampling")) << d.summary;
}

TEST(Doctor, CountersRefusedInADockerContainerAskForCapSysAdmin) {
  FakeProbe probe;
  probe.permissions_ = {true, true, false, "docker"};  // root in the container, capability dropped
  probe.runs_["RangeProfiler"].notes["range_profiler"] = {"off",
                                                          "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"};
  Diagnosis d = diagnose(gatherFacts(probe, true));
  const std::string& reason = verdictOf(d, "RangeProfiler").reason;
  EXPECT_TRUE(has(reason, "root but lacks CAP_SYS_ADMIN")) << reason;
  EXPECT_TRUE(has(reason, "--cap-add SYS_ADMIN")) << reason;
  EXPECT_TRUE(has(reason, "host's driver decides")) << reason;
}

TEST(Doctor, RestrictedCountersAreForeseenWithoutAKernelRun) {
  FakeProbe probe;
  probe.permissions_ = {true, false, false, ""};
  Diagnosis d = diagnose(gatherFacts(probe, /*run_kernels=*/false));
  EXPECT_EQ(probe.engine_runs, 0);
  EXPECT_EQ(verdictOf(d, "None").verdict, Verdict::Expected);
  EXPECT_TRUE(has(verdictOf(d, "None").reason, "not tried: --no-kernel"));
  const EngineVerdict& v = verdictOf(d, "SassMetrics");
  EXPECT_EQ(v.verdict, Verdict::Refused);
  EXPECT_TRUE(has(v.fix, "NVreg_RestrictProfilingToAdminUsers=0")) << v.fix;
}

TEST(Doctor, AdminWithRestrictedCountersIsNotRefused) {
  FakeProbe probe;
  probe.permissions_ = {true, true, true, ""};
  Diagnosis d = diagnose(gatherFacts(probe, false));
  for (const auto& v : d.engines)
    EXPECT_EQ(v.verdict, Verdict::Expected) << v.engine << ": " << v.reason;
  EXPECT_TRUE(has(d.summary, "nothing stands in the way")) << d.summary;
}

TEST(Doctor, AnOldCuptiGetsTheLongRunWarning) {
  FakeProbe probe;
  probe.cupti_.api_version = 130001;
  Diagnosis d = diagnose(gatherFacts(probe, true));
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_TRUE(has(d.problems[0].what, "CUPTI 13.0 Update 1 predates 13.4 Update 1"))
      << d.problems[0].what;
  EXPECT_TRUE(has(d.problems[0].what, "CPU")) << d.problems[0].what;
  EXPECT_TRUE(has(d.problems[0].fix, "nvidia-cuda-cupti>=13.4")) << d.problems[0].fix;
  // The warning does not refuse anything: short runs are fine.
  for (const auto& v : d.engines) EXPECT_EQ(v.verdict, Verdict::Works) << v.engine;

  probe.cupti_.api_version = kCuptiCpuGrowthFixed;
  probe.driver_.cuda_version = 13040;
  EXPECT_TRUE(diagnose(gatherFacts(probe, true)).problems.empty());
}

TEST(Doctor, WithoutAnApiVersionTheWheelsVersionDecides) {
  // CUPTI 13.5 answers cuptiGetVersion only with a driver: the nvidia-cuda-cupti version stands in.
  FakeProbe probe;
  probe.cupti_.api_version = 0;
  probe.cupti_.package_version = "13.0.85";
  Diagnosis d = diagnose(gatherFacts(probe, true));
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_TRUE(has(d.problems[0].what, "nvidia-cuda-cupti 13.0.85 predates 13.4 Update 1"))
      << d.problems[0].what;
  probe.cupti_.package_version = "13.4.92";
  probe.driver_.cuda_version = 13040;
  d = diagnose(gatherFacts(probe, true));
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_TRUE(has(d.problems[0].what, "13.4.92 may predate 13.4 Update 1")) << d.problems[0].what;
  probe.cupti_.package_version = "13.5.25";
  probe.driver_.cuda_version = 13050;
  EXPECT_TRUE(diagnose(gatherFacts(probe, true)).problems.empty());
  probe.cupti_.package_version = "";
  EXPECT_TRUE(diagnose(gatherFacts(probe, true)).problems.empty());
}

TEST(Doctor, ACuptiNewerThanTheDriverIsSaid) {
  FakeProbe probe;  // driver 580: CUDA 13.0
  probe.cupti_.api_version = 0;
  probe.cupti_.package_version = "13.5.25";
  Diagnosis d = diagnose(gatherFacts(probe, true));
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_TRUE(has(d.problems[0].what, "libcupti is CUDA 13.5, newer than the driver's CUDA 13.0"))
      << d.problems[0].what;
  EXPECT_TRUE(has(d.problems[0].fix, "nvidia-cuda-cupti==13.0.*")) << d.problems[0].fix;
  probe.cupti_.api_version = 130001;  // the driver's own CUDA: only the long-run warning
  d = diagnose(gatherFacts(probe, true));
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_TRUE(has(d.problems[0].what, "predates 13.4 Update 1"));
}

TEST(Doctor, ACuptiLackingAFunctionRefusesTheEnginesThatNeedIt) {
  FakeProbe probe;
  const std::string why = "libcupti too old: cuptiSassMetricsSetConfig missing (libcupti.so.13)";
  probe.cupti_.engine_missing = {{"SassMetrics", why}, {"PcSamplingWithSass", why}};
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_EQ(verdictOf(d, "PcSampling").verdict, Verdict::Works);
  for (const char* e : {"SassMetrics", "PcSamplingWithSass"}) {
    EXPECT_EQ(verdictOf(d, e).verdict, Verdict::Refused);
    EXPECT_EQ(verdictOf(d, e).reason, why);
    EXPECT_TRUE(has(verdictOf(d, e).fix, "newer CUPTI"));
  }
}

TEST(Doctor, ADriverOlderThanCuda13RefusesEverything) {
  FakeProbe probe;
  probe.driver_.cuda_version = 12040;
  Diagnosis d = diagnose(gatherFacts(probe, true));
  const EngineVerdict& v = verdictOf(d, "None");
  EXPECT_EQ(v.verdict, Verdict::Refused);
  EXPECT_TRUE(has(v.reason, "supports CUDA 12.4")) << v.reason;
  EXPECT_TRUE(has(v.fix, "580")) << v.fix;
}

TEST(Doctor, NoCuptiSaysHowToGetIt) {
  FakeProbe probe;
  probe.cupti_ = CuptiFacts{};
  probe.cupti_.library.error = "libcupti.so.13 not found (looked in libcupti.so.13, libcupti.so)";
  DoctorFacts facts = gatherFacts(probe, true);
  Diagnosis d = diagnose(facts);
  EXPECT_EQ(probe.engine_runs, 0);
  EXPECT_TRUE(has(verdictOf(d, "None").fix, "gpufl[cu13]"));
  EXPECT_TRUE(has(verdictOf(d, "None").fix, "GPUFL_CUPTI_DIRS"));
}

TEST(Doctor, WithoutTheBackendNothingTraces) {
  FakeProbe probe;
  probe.build_.cuda_backend = false;
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_EQ(probe.engine_runs, 0);
  EXPECT_TRUE(has(verdictOf(d, "PcSampling").reason, "without the CUDA backend"));
}

TEST(Doctor, AnInjectionThatDidNotTakeIsSaid) {
  FakeProbe probe;
  probe.runs_["None"].kernels = 0;
  probe.runs_["None"].notes.clear();
  probe.runs_["PcSampling"].ran = false;
  probe.runs_["PcSampling"].error = "timed out after 60 s";
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_TRUE(has(verdictOf(d, "None").reason, "injection did not take"));
  EXPECT_TRUE(has(verdictOf(d, "PcSampling").reason, "timed out after 60 s"));
}

TEST(Doctor, NoGpuOnACiMachineWithCupti) {
  // CI: the toolkit's libcupti loads, but there is no driver.
  FakeProbe probe;
  probe.driver_ = DriverFacts{};
  probe.nvml_ = LibraryFinding{};
  probe.nvml_.error = "libnvidia-ml.so.1 not found";
  Diagnosis d = diagnose(gatherFacts(probe, true));
  EXPECT_EQ(verdictOf(d, "None").verdict, Verdict::Refused);
  // Without a driver, the missing NVML is no separate problem.
  EXPECT_TRUE(d.problems.size() == 1u && has(d.problems[0].what, "CUPTI 13.0 Update 1"));
}

TEST(Doctor, VersionTexts) {
  EXPECT_EQ(cuptiVersionText(130001), "13.0 Update 1");
  EXPECT_EQ(cuptiVersionText(130400), "13.4");
  EXPECT_EQ(cuptiVersionText(28), "28");
  EXPECT_EQ(cudaVersionText(13000), "13.0");
  EXPECT_EQ(cudaVersionText(12040), "12.4");
}

}  // namespace
}  // namespace gpufl::doctor
