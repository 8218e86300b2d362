#include "report/aggregate/kernel_origin.hpp"

#include <array>

namespace gpufl::report {
namespace {

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool startsWith(std::string_view s, std::string_view head) {
  return s.substr(0, head.size()) == head;
}

// "sm80_xmma_gemm_...", "sm90_xmma_...", "ampere_sgemm_...", "hopper_..." and cuBLASLt's
// "nvjet_..." are cuBLAS's precompiled kernels: an arch prefix, then the routine.
bool blasName(std::string_view n) {
  constexpr std::array kParts = {"xmma_",
                                 "cutlass",
                                 "cublas",
                                 "cudnn",
                                 "nvjet_",
                                 "gemv2T",
                                 "gemvNSP",
                                 "gemmSN",
                                 "gemmk1",
                                 "splitKreduce",
                                 "implicit_convolve",
                                 "winograd",
                                 "conv2d_grouped_direct"};
  for (std::string_view p : kParts)
    if (contains(n, p)) return true;
  constexpr std::array kHeads = {"ampere_", "hopper_",  "volta_",
                                 "turing_", "maxwell_", "blackwell_"};
  for (std::string_view h : kHeads)
    if (startsWith(n, h) && (contains(n, "gemm") || contains(n, "conv"))) return true;
  return false;
}

}  // namespace

KernelOrigin kernelOrigin(std::string_view demangled, std::string_view mangled) {
  for (std::string_view n : {demangled, mangled}) {
    if (n.empty()) continue;
    if (contains(n, "nccl")) return KernelOrigin::Nccl;
    if (blasName(n)) return KernelOrigin::Blas;
    // Triton names its kernels after the Python function; inductor's start triton_poi_/triton_red_/
    // triton_per_/triton_tem_, a hand-written one is usually "..._kernel" with no C++ scope at all,
    // which is indistinguishable from a user's CUDA kernel: only the triton_ prefix counts.
    if (startsWith(n, "triton_") || startsWith(n, "triton__")) return KernelOrigin::Triton;
    if (contains(n, "at::native") || contains(n, "at::cuda") || contains(n, "c10::") ||
        contains(n, "_ZN2at6native") || contains(n, "_ZN2at4cuda") || contains(n, "_ZN3c10"))
      return KernelOrigin::PyTorch;
  }
  // ATen's .cu files put kernels in an anonymous namespace named after the file
  // (_GLOBAL__N__<hash>_10_SoftMax_cu_<hash>); demangled, only "(anonymous namespace)" is left.
  if (contains(mangled, "_GLOBAL__N__") && contains(mangled, "_cu_") &&
      (contains(mangled, "_ZN2at") || contains(mangled, "SoftMax_cu") ||
       contains(mangled, "Loss_cu") || contains(mangled, "Reduce") ||
       contains(mangled, "Distribution") || contains(mangled, "Foreach") ||
       contains(mangled, "Embedding") || contains(mangled, "Normalization") ||
       contains(mangled, "layer_norm") || contains(mangled, "Dropout")))
    return KernelOrigin::PyTorch;
  return KernelOrigin::User;
}

std::string_view originLabel(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::Blas:
      return "cuBLAS/CUTLASS/cuDNN";
    case KernelOrigin::Nccl:
      return "NCCL";
    case KernelOrigin::PyTorch:
      return "PyTorch";
    case KernelOrigin::Triton:
      return "Triton";
    case KernelOrigin::User:
      break;
  }
  return "";
}

std::string libraryAdvice(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::Blas:
      return "use dimensions in multiples of 16, lower precision (TF32, BF16), batched calls, or "
             "another algorithm (cudnn.benchmark, cublasLt heuristics)";
    case KernelOrigin::Nccl:
      return "overlap communication with compute, and send fewer, larger messages (bucket "
             "gradients)";
    case KernelOrigin::PyTorch:
      return "fuse neighbouring operations (torch.compile), use larger batches, contiguous "
             "tensors, "
             "or lower precision (AMP)";
    case KernelOrigin::Triton:
      return "retune its config (BLOCK sizes, num_warps, num_stages), or let torch.compile "
             "autotune (mode=\"max-autotune\")";
    case KernelOrigin::User:
      break;
  }
  return "";
}

}  // namespace gpufl::report
