// `gpufl doctor`: can this machine trace, and with which engines? One screen (or --json) with the
// driver, the libraries gpufl would load and from where, what the driver lets this user do with
// the GPU's counters, known problems of what was found, and a verdict per engine, tried for real
// with a tiny kernel under `gpufl trace` where there is a GPU (src/doctor says how).
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli.hpp"
#include "doctor/diagnose.hpp"
#include "doctor/probe_kernel.hpp"
#include "doctor/system_probe.hpp"
#include "doctor_render.hpp"
#include "doctor_run.hpp"
#include "fit_text.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

struct DoctorArgs {
  bool json = false;
  bool no_kernel = false;
  bool keep = false;
  bool probe_kernel = false;
  int timeout_s = 60;
};

int runDoctor(const DoctorArgs& a, CliContext& ctx) {
  if (a.probe_kernel) {
    // The program the engine runs trace: its own process, under gpufl trace.
    std::string error;
    if (doctor::runProbeKernel(&error)) {
      ctx.out << "gpufl doctor: probe kernel ok\n";
      return kExitOk;
    }
    ctx.err << "gpufl doctor: probe kernel failed: " << error << "\n";
    return kExitFailure;
  }
  DoctorRunOptions run_options;
  run_options.timeout_s = a.timeout_s;
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  std::string pattern = ((ec ? fs::path("/tmp") : tmp) / "gpufl-doctor-XXXXXX").string();
  bool made_dir = false;
  doctor::SystemProbe probe([&](const std::string& engine) {
    if (!made_dir) {
      if (mkdtemp(pattern.data()) == nullptr) {
        doctor::EngineRun r;
        r.engine = engine;
        r.error = "cannot create a directory for the probe logs (" + pattern + ")";
        return r;
      }
      made_dir = true;
      run_options.work_dir = pattern;
      if (!a.json) ctx.err << "gpufl doctor: running a tiny kernel under each engine...\n";
    }
    return runDoctorEngine(engine, run_options);
  });
  const doctor::DoctorFacts facts = doctor::gatherFacts(probe, !a.no_kernel);
  const doctor::Diagnosis diagnosis = doctor::diagnose(facts);
  if (a.json)
    renderDoctorJson(ctx.out, facts, diagnosis);
  else {
    std::ostringstream text;
    renderDoctorText(text, facts, diagnosis);
    ctx.out << fitLines(text.str(), textWidth(ctx));
  }
  if (made_dir) {
    if (a.keep)
      ctx.err << "gpufl doctor: probe logs kept in " << run_options.work_dir << "\n";
    else
      fs::remove_all(run_options.work_dir, ec);
  }
  return kExitOk;
}

}  // namespace

void addDoctorCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* cmd = app.add_subcommand(
      "doctor", "check this machine: driver, CUPTI, NVML, permissions, and which engines work");
  cmd->add_flag("--json", args->json, "one JSON object instead of the screen");
  cmd->add_flag("--no-kernel", args->no_kernel,
                "do not run the tiny kernel under each engine (verdicts from what is seen only)");
  cmd->add_option("--timeout", args->timeout_s, "seconds each engine's run may take (default 60)")
      ->check(CLI::Range(1, 3600));
  cmd->add_flag("--keep", args->keep, "keep the engine runs' logs (their directory is printed)");
  // The program the engine runs trace; not for users.
  cmd->add_flag("--probe-kernel", args->probe_kernel)->group("");
  cmd->callback([args, &ctx] { ctx.exit_code = runDoctor(*args, ctx); });
}

}  // namespace gpufl::cli
