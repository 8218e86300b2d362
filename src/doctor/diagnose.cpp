#include "doctor/diagnose.hpp"

#include <algorithm>
#include <cstdio>

#include "doctor/engine_refusal.hpp"

namespace gpufl::doctor {
namespace {

bool isDeep(const std::string& engine) {
  return engine != "None";
}

// The log features an engine's notes are written under (the runtime's note names).
std::vector<std::string> featuresOf(const std::string& engine) {
  if (engine == "PcSampling") return {"pc_sampling"};
  if (engine == "SassMetrics") return {"sass_metrics"};
  if (engine == "PcSamplingWithSass") return {"sass_metrics", "pc_sampling"};
  if (engine == "RangeProfiler") return {"range_profiler"};
  return {};
}

// What stands in the way of every engine before anything runs, or of the deep ones only; empty
// reason when nothing does.
EngineVerdict staticVerdict(const DoctorFacts& f, const std::string& engine) {
  EngineVerdict v{engine, Verdict::Expected, "", ""};
  auto refuse = [&](std::string reason, std::string fix) {
    v.verdict = Verdict::Refused;
    v.reason = std::move(reason);
    v.fix = std::move(fix);
    return v;
  };
  const PermissionFacts& p = f.permissions;
  if (!f.build.cuda_backend)
    return refuse("this gpufl was built without the CUDA backend",
                  "install the gpufl wheel (scripts/build-wheel.sh), or rebuild with CUDA headers "
                  "(scripts/fetch-cuda-headers.sh when there is no toolkit)");
  if (!f.driver.library.found)
    return refuse(f.driver.library.error.empty() ? "no NVIDIA driver (libcuda.so.1 not found)"
                                                 : f.driver.library.error,
                  p.container.empty()
                      ? "install the NVIDIA driver"
                      : "start the container with --gpus all (NVIDIA Container Toolkit)");
  if (!f.driver.init_error.empty())
    return refuse("cuInit failed: " + f.driver.init_error,
                  "check nvidia-smi, CUDA_VISIBLE_DEVICES and the driver's kernel module");
  if (f.driver.gpus.empty())
    return refuse("no CUDA device", "check nvidia-smi and CUDA_VISIBLE_DEVICES");
  if (!f.cupti.library.found)
    return refuse(
        f.cupti.library.error.empty() ? "libcupti.so.13 not found" : f.cupti.library.error,
        "pip install 'gpufl[cu13]' (nvidia-cuda-cupti), install the CUDA toolkit, or set "
        "GPUFL_CUPTI_DIRS to the directory of libcupti.so.13");
  if (f.driver.cuda_version > 0 && f.driver.cuda_version < 13000)
    return refuse("the driver supports CUDA " + cudaVersionText(f.driver.cuda_version) +
                      ", older than the CUDA 13 that libcupti.so.13 needs",
                  "a driver of the 580 series or newer");
  if (auto it = f.cupti.engine_missing.find(engine); it != f.cupti.engine_missing.end())
    return refuse(it->second,
                  "a newer CUPTI: pip install -U 'nvidia-cuda-cupti>=13', or GPUFL_CUPTI_DIRS");
  if (isDeep(engine)) {
    bool any_capable = std::any_of(f.driver.gpus.begin(), f.driver.gpus.end(),
                                   [](const GpuFacts& g) { return g.cc_major >= 7; });
    if (!any_capable)
      return refuse("every GPU is older than compute capability 7.0", "a Volta or newer GPU");
  }
  return v;
}

// Turns a real run of the engine into its verdict.
EngineVerdict runVerdict(const DoctorFacts& f, const EngineRun& run) {
  EngineVerdict v{run.engine, Verdict::Refused, "", ""};
  if (!run.ran) {
    v.reason = "the traced probe kernel did not run: " + run.error;
    v.fix = "gpufl trace --debug -- gpufl doctor --probe-kernel shows what gpufl did";
    return v;
  }
  auto tracing = run.notes.find("cupti_activity");
  if (tracing != run.notes.end() && tracing->second.first == "off") {
    v.reason = engineRefusalReason(run.engine, tracing->second.second, f.permissions);
    return v;
  }
  if (run.kernels == 0) {
    v.reason = "the probe ran but its log holds no kernel: the injection did not take";
    v.fix = "check that nothing else sets CUDA_INJECTION64_PATH; gpufl trace --debug says more";
    return v;
  }
  std::string seen =
      std::to_string(run.kernels) + (run.kernels == 1 ? " kernel" : " kernels") + " traced";
  for (const std::string& feature : featuresOf(run.engine)) {
    auto it = run.notes.find(feature);
    if (it == run.notes.end()) {
      v.reason = feature + " left no note in the probe's log";
      v.fix = "gpufl trace --debug --engine " + run.engine + " -- gpufl doctor --probe-kernel";
      return v;
    }
    if (it->second.first == "off") {
      v.reason = engineRefusalReason(run.engine, it->second.second, f.permissions);
      return v;
    }
    seen += "; " + feature + " " + it->second.first;
  }
  v.verdict = Verdict::Works;
  v.reason = seen;
  return v;
}

}  // namespace

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Works:
      return "works";
    case Verdict::Expected:
      return "untested";
    case Verdict::Refused:
      return "refused";
  }
  return "?";
}

std::string cuptiVersionText(uint32_t v) {
  if (v < 130000) return std::to_string(v);
  std::string text = std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100);
  if (v % 100 != 0) text += " Update " + std::to_string(v % 100);
  return text;
}

std::string cudaVersionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

Diagnosis diagnose(const DoctorFacts& f) {
  Diagnosis d;
  for (const char* engine : kEngines) {
    EngineVerdict v = staticVerdict(f, engine);
    if (v.verdict != Verdict::Refused) {
      auto run = std::find_if(f.runs.begin(), f.runs.end(),
                              [&](const EngineRun& r) { return r.engine == engine; });
      if (run != f.runs.end()) {
        v = runVerdict(f, *run);
      } else if (isDeep(engine) && f.permissions.profiling_admin_only == true &&
                 !f.permissions.cap_sys_admin) {
        // Not tried, but the driver's setting and this process's capabilities say how it would end.
        v.verdict = Verdict::Refused;
        v.reason = "GPU performance counters are restricted to admin users";
        v.fix = permissionAdvice(f.permissions);
      } else {
        v.reason =
            "not tried: " + (f.kernels_skipped.empty() ? std::string("no run") : f.kernels_skipped);
      }
    }
    d.engines.push_back(std::move(v));
  }

  const std::string growth = " long activity tracing grows in CPU use over hours";
  const std::string newer =
      "for runs of hours, a newer CUPTI: pip install -U 'nvidia-cuda-cupti>=13.4' (gpufl finds it "
      "on sys.path), or GPUFL_CUPTI_DIRS=<its lib directory>";
  const uint32_t api = f.cupti.api_version;
  if (f.cupti.library.found && api >= 130000 && api < kCuptiCpuGrowthFixed) {
    d.problems.push_back(
        {"CUPTI " + cuptiVersionText(api) + " predates 13.4 Update 1:" + growth, newer});
  } else if (f.cupti.library.found && api == 0) {
    // No API version (CUPTI 13.5 gives none without a driver): the wheel's version, whose patch
    // number does not tell 13.4's updates apart.
    int major = 0, minor = 0;
    if (std::sscanf(f.cupti.package_version.c_str(), "%d.%d", &major, &minor) == 2 && major == 13) {
      const std::string which = "CUPTI of nvidia-cuda-cupti " + f.cupti.package_version;
      if (minor < 4)
        d.problems.push_back({which + " predates 13.4 Update 1:" + growth, newer});
      else if (minor == 4)
        d.problems.push_back(
            {which + " may predate 13.4 Update 1 (its API version needs a GPU to read):" + growth,
             newer});
    }
  }
  // A CUPTI newer than the driver's CUDA may refuse to start (CUPTI follows the toolkit it ships
  // with; the driver's CUDA version is the newest it fully serves).
  int cupti_major = 0, cupti_minor = 0;
  if (api >= 130000) {
    cupti_major = static_cast<int>(api / 10000);
    cupti_minor = static_cast<int>(api / 100 % 100);
  } else if (std::sscanf(f.cupti.package_version.c_str(), "%d.%d", &cupti_major, &cupti_minor) !=
             2) {
    cupti_major = 0;
  }
  const int drv = f.driver.cuda_version;
  if (f.cupti.library.found && cupti_major > 0 && drv > 0 &&
      cupti_major * 1000 + cupti_minor * 10 > drv)
    d.problems.push_back({"libcupti is CUDA " + std::to_string(cupti_major) + "." +
                              std::to_string(cupti_minor) + ", newer than the driver's CUDA " +
                              cudaVersionText(drv) + ": CUPTI may refuse to trace or profile",
                          "a libcupti of the driver's CUDA (pip install 'nvidia-cuda-cupti==" +
                              cudaVersionText(drv) + ".*'), or a newer driver"});
  if (f.driver.library.found && !f.driver.init_error.empty() && !f.permissions.container.empty())
    d.problems.push_back({"cuInit failed inside a container (" + f.permissions.container + ")",
                          "docker run --gpus all (NVIDIA Container Toolkit), or "
                          "NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES"});
  if (!f.nvml.found && f.driver.library.found)
    d.problems.push_back(
        {"libnvidia-ml.so.1 not loaded: no GPU utilisation, clocks or power in the "
         "system log (" +
             f.nvml.error + ")",
         "in a container: --gpus all with the utility capability "
         "(NVIDIA_DRIVER_CAPABILITIES=compute,utility)"});

  const auto count = [&](Verdict want) {
    return std::count_if(d.engines.begin(), d.engines.end(),
                         [&](const EngineVerdict& e) { return e.verdict == want; });
  };
  const EngineVerdict& none = d.engines.front();
  if (none.verdict == Verdict::Refused) {
    d.summary =
        "gpufl cannot trace here: " + none.reason + (none.fix.empty() ? "" : "; " + none.fix);
  } else if (count(Verdict::Refused) == 0) {
    d.summary = count(Verdict::Works) == static_cast<long>(d.engines.size())
                    ? "every engine works here"
                    : "nothing stands in the way of any engine (not tried with a kernel: " +
                          f.kernels_skipped + ")";
  } else {
    auto first = std::find_if(d.engines.begin(), d.engines.end(),
                              [](const EngineVerdict& e) { return e.verdict == Verdict::Refused; });
    d.summary = "tracing works; " + std::to_string(count(Verdict::Refused)) +
                " engine(s) refused, first " + first->engine + ": " + first->reason;
  }
  return d;
}

DoctorFacts gatherFacts(DoctorProbe& probe, bool run_kernels) {
  DoctorFacts f;
  f.build = probe.build();
  f.permissions = probe.permissions();
  f.driver = probe.driver();
  f.nvml = probe.nvml();
  f.cupti = probe.cupti();
  if (!run_kernels)
    f.kernels_skipped = "--no-kernel";
  else if (!f.build.cuda_backend)
    f.kernels_skipped = "no CUDA backend";
  else if (!f.driver.library.found)
    f.kernels_skipped = "no NVIDIA driver";
  else if (!f.driver.init_error.empty() || f.driver.gpus.empty())
    f.kernels_skipped = "no usable GPU";
  else if (!f.cupti.library.found)
    f.kernels_skipped = "no libcupti";
  if (f.kernels_skipped.empty()) {
    f.kernels_tried = true;
    for (const char* engine : kEngines) f.runs.push_back(probe.runEngine(engine));
  }
  return f;
}

}  // namespace gpufl::doctor
