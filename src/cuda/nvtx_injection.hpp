// Getting NVTX calls to CUPTI. CUPTI sees NVTX calls only when the NVTX instance making them chose
// CUPTI as its tool, and NVTX chooses once, at an instance's first NVTX call, from
// NVTX_INJECTION64_PATH (each library built with the header-only nvtx3 is its own instance;
// libnvToolsExt.so is one). So the variable must name the libcupti gpufl subscribed to, the very
// file (a second copy of libcupti would have no subscriber), before that first call:
//   - `gpufl trace` sets it in the program's environment to gpufl's injection library, which
//     forwards NVTX's initialisation to the libcupti gpufl loads (src/inject/nvtx_forward.cpp): set
//     from the start, and the same libcupti by construction;
//   - linked (gpufl::init, gpufl.init), init sets it to the loaded libcupti when unset. Libraries
//     that made an NVTX call before init keep no tool, and gpufl cannot tell which did (nvtx3 keeps
//     that state in each library's hidden globals): their ranges are missed, which the session's
//     note says.
// A value naming anything else (another tool's library, another copy of libcupti) is left alone;
// the note says ranges will not reach gpufl.
#pragma once

#include <string>

namespace gpufl::cuda {

struct NvtxInjectionPlan {
  bool set_env = false;  // setenv("NVTX_INJECTION64_PATH", value)
  std::string value;
  std::string status;  // note status: "on" or "degraded"
  std::string reason;  // note text
};

// What to do given the variable's current value (nullptr when unset), the file of the libcupti
// gpufl loaded, and gpufl trace's injection library (CUDA_INJECTION64_PATH when injected, else
// nullptr). Paths are compared as files (same device and inode), so links and relative paths match.
NvtxInjectionPlan planNvtxInjection(const char* current, const std::string& cupti_file,
                                    const char* inject_library);

// Applies the plan for this process (reads and may set NVTX_INJECTION64_PATH) and returns it, for
// the note. `injected`: running under gpufl trace.
NvtxInjectionPlan configureNvtxInjection(const std::string& cupti_file, bool injected);

// True when both paths name the same existing file.
bool sameFile(const std::string& a, const std::string& b);

}  // namespace gpufl::cuda
