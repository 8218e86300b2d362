// `gpufl occupancy --arch sm_90 --threads 256 --regs 32 --smem 16384 [--dyn-smem N] [--carveout
// PCT] [--json]`: the theoretical occupancy of one launch shape, with the per-resource breakdown
// and what to change.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli.hpp"
#include "core/arch_limits.hpp"
#include "core/occupancy.hpp"
#include "fit_text.hpp"
#include "occupancy_text.hpp"

namespace gpufl::cli {
namespace {

struct OccupancyArgs {
  std::string arch;
  long long threads = 0;
  long long regs = 0;
  long long smem = 0;
  long long dyn_smem = 0;
  long long carveout = -1;
  bool json = false;
};

std::string knownArchList() {
  std::string s;
  for (const std::string& name : knownArchNames()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

void runOccupancy(const OccupancyArgs& a, CliContext& ctx) {
  auto limits = archLimitsFromName(a.arch);
  if (!limits) {
    const char* what = parseArchName(a.arch) ? "unknown architecture" : "not an architecture name";
    throw CLI::ValidationError(
        "--arch", std::string(what) + " '" + a.arch + "' (known: " + knownArchList() + ")");
  }
  if (a.threads < 1 || a.threads > limits->max_threads_per_block)
    throw CLI::ValidationError("--threads", "threads per block must be 1.." +
                                                std::to_string(limits->max_threads_per_block) +
                                                ", got " + std::to_string(a.threads));
  if (a.regs < 0 || a.regs > limits->max_regs_per_thread)
    throw CLI::ValidationError("--regs", "registers per thread must be 0.." +
                                             std::to_string(limits->max_regs_per_thread) +
                                             ", got " + std::to_string(a.regs));
  if (a.smem < 0)
    throw CLI::ValidationError(
        "--smem", "static shared memory must not be negative, got " + std::to_string(a.smem));
  if (a.dyn_smem < 0)
    throw CLI::ValidationError("--dyn-smem", "dynamic shared memory must not be negative, got " +
                                                 std::to_string(a.dyn_smem));
  if (a.carveout < -1 || a.carveout > 100)
    throw CLI::ValidationError("--carveout",
                               "carveout must be a percentage 0..100 (or -1: no preference), got " +
                                   std::to_string(a.carveout));

  OccupancyInput in;
  in.block_threads = static_cast<int>(a.threads);
  in.regs_per_thread = static_cast<int>(a.regs);
  in.static_smem_bytes = a.smem;
  in.dyn_smem_bytes = a.dyn_smem;
  in.carveout_percent = static_cast<int>(a.carveout);
  OccupancyDetail d = computeOccupancyDetail(*limits, in);
  ctx.out << (a.json ? occupancyJson(*limits, in, d)
                     : fitLines(occupancyText(*limits, in, d), textWidth(ctx)));
  ctx.exit_code = kExitOk;
}

}  // namespace

void addOccupancyCommand(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<OccupancyArgs>();
  CLI::App* cmd = app.add_subcommand("occupancy",
                                     "Theoretical occupancy of a launch shape, and what limits it");
  cmd->add_option("--arch", args->arch, "Architecture: sm_70 .. sm_121 (also 9.0, sm_90a)")
      ->required();
  cmd->add_option("--threads", args->threads, "Threads per block (x*y*z)")->required();
  cmd->add_option("--regs", args->regs, "Registers per thread (num_regs)")->required();
  cmd->add_option("--smem", args->smem,
                  "Static shared memory per block, bytes (static_shared_bytes)");
  cmd->add_option("--dyn-smem", args->dyn_smem,
                  "Dynamic shared memory per block, bytes (dyn_shared_bytes)");
  cmd->add_option(
      "--carveout", args->carveout,
      "Preferred shared-memory carveout, percent 0..100 (default: none, the full capacity)");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->callback([args, &ctx] { runOccupancy(*args, ctx); });
}

}  // namespace gpufl::cli
