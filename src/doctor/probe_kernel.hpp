// The doctor's tiny CUDA program: loads a PTX kernel through the driver API (JIT-compiled by the
// driver, so no toolkit or compiler is needed), launches it a few times and checks what it wrote.
// `gpufl doctor` runs it under `gpufl trace --engine <each>` (`gpufl doctor --probe-kernel`), so
// the injection, CUPTI and each engine are tried on a real kernel.
#pragma once

#include <string>

namespace gpufl::doctor {

// Runs the probe; true when every launch ran and wrote what it should. `error` says what failed
// ("cuInit: CUDA_ERROR_NO_DEVICE (100)").
bool runProbeKernel(std::string* error);

// The kernel's PTX (the function is `gpufl_doctor_probe`), for tests.
const char* probeKernelPtx();

}  // namespace gpufl::doctor
