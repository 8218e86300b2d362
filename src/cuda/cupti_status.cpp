#include "cuda/cupti_status.hpp"

#include "cuda/cupti_api.hpp"

namespace gpufl::cuda {

std::string explainCuptiFailure(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_UNKNOWN:  // what enabling activity returns on a machine with CUPTI but no
                               // driver/GPU
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
      return "no GPU or NVIDIA driver available";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return "CUPTI is already in use by another tool (Nsight, another profiler)";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return "GPU performance counters need admin rights (root, or the driver option "
             "NVreg_RestrictProfilingToAdminUsers=0)";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return "not supported on this GPU or driver";
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
      return "not supported on a MIG partition";
    default:
      return "";
  }
}

std::string CuptiCall::describe() const {
  const char* text = nullptr;
  if (cupti::cuptiGetResultString(result, &text) != CUPTI_SUCCESS) text = nullptr;
  std::string out = std::string(what) + ": " + (text != nullptr ? text : "unknown CUPTI error");
  if (std::string why; !cuptiLibrary().has(CuptiFeature::Tracing, &why))
    return out + " (CUPTI unavailable: " + why + ")";
  if (std::string hint = explainCuptiFailure(result); !hint.empty()) out += " (" + hint + ")";
  return out;
}

}  // namespace gpufl::cuda
