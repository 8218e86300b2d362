#include "report/aggregate/kernel_origin.hpp"

#include <gtest/gtest.h>

namespace gpufl::report {
namespace {

// Names as the H200 fixtures record them (tests/data/h200/pytorch_train_trace.device.log).
TEST(KernelOrigin, LibraryKernelsAreRecognisedByName) {
  EXPECT_EQ(
      kernelOrigin("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8_stage3_warpsize1x2x1_"
                   "ffma_aligna4_alignc4_execute_kernel__5x_cublas",
                   ""),
      KernelOrigin::Blas);
  EXPECT_EQ(
      kernelOrigin("void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(...)",
                   "_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_tn_align1EEvNT_6ParamsE"),
      KernelOrigin::Blas);
  EXPECT_EQ(kernelOrigin("cublasLt::splitKreduce_kernel<32, 16, int>", ""), KernelOrigin::Blas);
  EXPECT_EQ(kernelOrigin("ampere_sgemm_128x64_tn", ""), KernelOrigin::Blas);
  EXPECT_EQ(kernelOrigin("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, ...)", ""),
            KernelOrigin::Nccl);
  EXPECT_EQ(
      kernelOrigin("at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
                   "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE"),
      KernelOrigin::PyTorch);
  // ATen's anonymous namespaces survive only in the mangled name.
  EXPECT_EQ(kernelOrigin(
                "(anonymous namespace)::softmax_warp_forward<float, float, float, 4>",
                "_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi4E"),
            KernelOrigin::PyTorch);
  EXPECT_EQ(kernelOrigin("triton_poi_fused_add_relu_0", "triton_poi_fused_add_relu_0"),
            KernelOrigin::Triton);
}

TEST(KernelOrigin, UserKernelsStayUser) {
  EXPECT_EQ(kernelOrigin("__main__::matmul_kernel", ""), KernelOrigin::User);
  EXPECT_EQ(kernelOrigin("reduce_rows(float const*, float*, int)", "_Z11reduce_rowsPKfPfi"),
            KernelOrigin::User);
  // A user's own anonymous namespace is not PyTorch's.
  EXPECT_EQ(kernelOrigin("(anonymous namespace)::scale",
                         "_ZN43_GLOBAL__N__1234abcd_8_mine_cu_5678ef005scaleEv"),
            KernelOrigin::User);
  EXPECT_EQ(kernelOrigin("", ""), KernelOrigin::User);
}

TEST(KernelOrigin, LibraryAdviceNamesWhatTheUserCanChange) {
  EXPECT_EQ(libraryAdvice(KernelOrigin::User), "");
  const std::string blas = libraryAdvice(KernelOrigin::Blas);
  EXPECT_NE(blas.find("precision"), std::string::npos);
  EXPECT_NE(blas.find("batched"), std::string::npos);
  EXPECT_EQ(blas.find("__launch_bounds__"), std::string::npos);
  EXPECT_NE(libraryAdvice(KernelOrigin::PyTorch).find("torch.compile"), std::string::npos);
  EXPECT_NE(libraryAdvice(KernelOrigin::Triton).find("num_warps"), std::string::npos);
  EXPECT_NE(libraryAdvice(KernelOrigin::Nccl).find("overlap"), std::string::npos);
}

}  // namespace
}  // namespace gpufl::report
