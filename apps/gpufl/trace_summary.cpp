#include "trace_summary.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <utility>
#include <vector>

#include "progress.hpp"
#include "report/report.hpp"

namespace gpufl::cli {
namespace {

namespace fs = std::filesystem;

// Prefixes written by the run: PREFIX itself and PREFIX.<pid> for child processes, each only when
// its device log was modified at or after `since`.
std::vector<std::string> writtenPrefixes(const std::string& prefix,
                                         std::optional<fs::file_time_type> since) {
  std::error_code ec;
  auto fresh = [&](const fs::path& log) {
    if (!fs::exists(log, ec)) return false;
    if (!since) return true;
    const auto t = fs::last_write_time(log, ec);
    return !ec && t >= *since;
  };
  std::vector<std::string> out;
  fs::path p(prefix);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string base = p.filename().string();
  if (fresh(prefix + ".device.log")) out.push_back(prefix);
  std::vector<std::pair<unsigned long long, std::string>> children;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    const std::string tail = ".device.log";
    if (name.size() <= base.size() + tail.size() + 1 || name.rfind(base + ".", 0) != 0) continue;
    if (name.compare(name.size() - tail.size(), tail.size(), tail) != 0) continue;
    std::string middle = name.substr(base.size() + 1, name.size() - base.size() - 1 - tail.size());
    if (middle.empty() || middle.size() > 18 ||
        middle.find_first_not_of("0123456789") != std::string::npos || !fresh(entry.path()))
      continue;
    children.emplace_back(std::stoull(middle), (dir / (base + "." + middle)).string());
  }
  std::sort(children.begin(), children.end());
  for (auto& [pid, child] : children) out.push_back(std::move(child));
  return out;
}

}  // namespace

std::string nvidiaDriverMissing() {
  // Loading the driver library starts no GPU work (that is cuInit's); it is unloaded at once.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver != nullptr) {
    dlclose(driver);
    return "";
  }
  const char* why = dlerror();
  return why != nullptr ? why : "libcuda.so.1 not found";
}

void printTraceSummary(const std::string& prefix, int exit_code, CliContext& ctx,
                       std::optional<fs::file_time_type> since, const std::string& no_driver) {
  std::vector<std::string> prefixes = writtenPrefixes(prefix, since);
  ctx.err << "\ngpufl trace: program exited with status " << exit_code << "\n";
  if (prefixes.empty()) {
    ctx.err << "gpufl trace: no log was written under " << prefix << ": ";
    if (!no_driver.empty())
      ctx.err << "no NVIDIA driver on this machine (" << no_driver
              << "), so CUDA could not start and gpufl was never loaded\n";
    else
      ctx.err << "the program never initialised CUDA (gpufl starts with the program's first CUDA "
                 "call; --debug shows what gpufl did)\n";
    return;
  }
  for (const auto& p : prefixes)
    ctx.err << "gpufl trace: logs: " << p << ".{device,scope,system}.log\n";
  report::ReportOptions options;
  options.top_n = 5;
  Progress progress(ctx.err, ctx.err_is_terminal, "gpufl trace: summarising " + prefixes.front());
  options.on_progress = [&](uint64_t records) { progress.update(records); };
  report::ReportOutput r = report::reportFromPrefix(prefixes.front(), "", options, false);
  progress.done();
  if (!r.ok) return;
  // The summary is the report up to its Kernel Details section (a session without kernels has
  // none: up to Memory Transfer Summary); `gpufl report` prints the rest.
  std::string text = r.text;
  auto cut = text.find("Kernel Details");
  if (cut == std::string::npos) cut = text.find("Memory Transfer Summary");
  if (cut != std::string::npos) {
    auto line_start = text.rfind("\n=", cut);
    text = text.substr(0, line_start == std::string::npos ? cut : line_start + 1);
  }
  ctx.err << text << "gpufl trace: full report: gpufl report " << prefixes.front() << "\n";
}

}  // namespace gpufl::cli
