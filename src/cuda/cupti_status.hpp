// One CUPTI call's outcome, described for people: "cuptiActivityEnable: CUPTI_ERROR_UNKNOWN (...)"
// plus what it most likely means for the user (no GPU, no permission, another profiler attached).
#pragma once

#include <cupti.h>

#include <string>

namespace gpufl::cuda {

struct CuptiCall {
  const char* what;
  CUptiResult result;
  bool ok() const { return result == CUPTI_SUCCESS; }
  std::string describe() const;
};

// A short explanation of a CUPTI failure in the user's terms, or "" when there is none better than
// the code.
std::string explainCuptiFailure(CUptiResult result);

}  // namespace gpufl::cuda
