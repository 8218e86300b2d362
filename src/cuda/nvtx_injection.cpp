#include "cuda/nvtx_injection.hpp"

#include <sys/stat.h>

#include <cstdlib>

namespace gpufl::cuda {
namespace {

constexpr const char* kVar = "NVTX_INJECTION64_PATH";
constexpr const char* kWhat = "NVTX push/pop ranges become scopes (tag nvtx, or nvtx:<domain>)";

}  // namespace

bool sameFile(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  struct stat sa {
  }, sb{};
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

NvtxInjectionPlan planNvtxInjection(const char* current, const std::string& cupti_file,
                                    const char* inject_library) {
  NvtxInjectionPlan plan;
  const std::string now = current != nullptr ? current : "";
  if (now.empty()) {
    if (cupti_file.empty()) {
      plan.status = "degraded";
      plan.reason = "NVTX ranges are not followed: the loaded libcupti's file is unknown, so " +
                    std::string(kVar) + " cannot be set (set it to libcupti's path yourself)";
      return plan;
    }
    plan.set_env = true;
    plan.value = cupti_file;
    plan.status = "on";
    plan.reason = std::string(kWhat) + "; " + kVar + " set to " + cupti_file +
                  " at init: a library that made an NVTX call before init (e.g. torch.cuda.nvtx "
                  "before gpufl.init) keeps no tool and its ranges are missed; gpufl cannot detect "
                  "this. Start gpufl before the first NVTX call, or use gpufl trace";
    return plan;
  }
  if (sameFile(now, cupti_file)) {
    plan.status = "on";
    plan.reason = std::string(kWhat) + "; " + kVar + "=" + now + " (this libcupti)";
    return plan;
  }
  if (inject_library != nullptr && sameFile(now, inject_library)) {
    plan.status = "on";
    plan.reason = std::string(kWhat) + "; " + kVar + "=" + now +
                  " (gpufl trace's injection library, forwarding to " +
                  (cupti_file.empty() ? std::string("libcupti") : cupti_file) + ")";
    return plan;
  }
  plan.status = "degraded";
  plan.reason =
      std::string("NVTX ranges will not reach gpufl: ") + kVar + "=" + now +
      " names another library (another tool, or another copy of libcupti); it must name " +
      (cupti_file.empty() ? std::string("the libcupti gpufl loads") : cupti_file) +
      " or gpufl's injection library. Left unchanged";
  return plan;
}

NvtxInjectionPlan configureNvtxInjection(const std::string& cupti_file, bool injected) {
  const char* inject = injected ? std::getenv("CUDA_INJECTION64_PATH") : nullptr;
  NvtxInjectionPlan plan = planNvtxInjection(std::getenv(kVar), cupti_file, inject);
  // setenv is not safe against a concurrent getenv on another thread; init runs early, normally
  // before the program's threads, and this is the only moment NVTX can still be pointed at CUPTI.
  if (plan.set_env && setenv(kVar, plan.value.c_str(), 0) != 0) {
    plan.status = "degraded";
    plan.reason = std::string("NVTX ranges are not followed: setenv(") + kVar + ") failed";
  }
  return plan;
}

}  // namespace gpufl::cuda
