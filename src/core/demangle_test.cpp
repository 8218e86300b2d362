#include "core/demangle.hpp"

#include <gtest/gtest.h>

namespace gpufl {
namespace {

// Numba-cuda 0.x: `__main__.matmul_kernel(float32[:, ::1] x3)`; the ABI tags are Numba's version
// and the base64 of its target flags ('=' escaped as `_3d`); the Array type repeats through the
// substitution S4_.
constexpr const char* kNumbaMatmul =
    "_ZN8__main__13matmul_"
    "kernelB2v1B94cw51cXTLSUwv1sCUt9Uw1VEw0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1PQBk0Bynm21OiwU1a0Uo"
    "LGhDpQE8oxrNQE_3dE5ArrayIfLi2E1C7mutable7alignedES4_S4_";

TEST(Demangle, PlainCppKernel) {
  EXPECT_EQ(demangle("_Z6kernelPfS_i"), "kernel(float*, float*, int)");
  EXPECT_EQ(readableKernelName("_Z6kernelPfS_i"), "kernel");
}

TEST(Demangle, NotMangledIsReturnedUnchanged) {
  EXPECT_EQ(demangle("matmul_naive"), "matmul_naive");
  EXPECT_EQ(readableKernelName("matmul_naive"), "matmul_naive");
  EXPECT_EQ(demangle(""), "");
  EXPECT_EQ(readableKernelName(""), "");
}

TEST(Demangle, InvalidMangledNameIsReturnedUnchanged) {
  EXPECT_EQ(demangle("_Zgarbage"), "_Zgarbage");
  EXPECT_EQ(readableKernelName("_Zgarbage"), "_Zgarbage");
}

TEST(Demangle, NumbaName) {
  std::string full = demangle(kNumbaMatmul);
  EXPECT_EQ(full.rfind("__main__::matmul_kernel[abi:v1][abi:cw51c", 0), 0u) << full;
  EXPECT_NE(
      full.find("](Array<float, 2, C, mutable, aligned>, Array<float, 2, C, mutable, aligned>, "),
      std::string::npos)
      << full;
  EXPECT_EQ(readableKernelName(kNumbaMatmul), "__main__::matmul_kernel");
}

TEST(Demangle, NumbaNameTheDemanglerRejects) {
  // The ABI tag's length prefix is wrong (96 for 94 characters): __cxa_demangle fails, the prefix
  // is still read.
  std::string bad = kNumbaMatmul;
  bad.replace(bad.find("B94"), 3, "B96");
  EXPECT_EQ(demangle(bad), bad);
  EXPECT_EQ(readableKernelName(bad), "__main__::matmul_kernel");
}

TEST(Demangle, OldNumbaNameWithCudapyPrefixAndUniquifier) {
  const char* name = "_ZN6cudapy8__main__17matmul_kernel$241E5ArrayIfLi2E1C7mutable7alignedE";
  EXPECT_EQ(demangle(name),
            "cudapy::__main__::matmul_kernel$241(Array<float, 2, C, mutable, aligned>)");
  EXPECT_EQ(readableKernelName(name), "__main__::matmul_kernel");
}

TEST(Demangle, NumbaEscapedCharacters) {
  // A closure `outer.<locals>.inner`: '<' and '>' are escaped as _3c and _3e.
  const char* name = "_ZN8__main__5outer12_3clocals_3e5innerB2v1B4abcdEi";
  EXPECT_EQ(readableKernelName(name), "__main__::outer::<locals>::inner");
}

TEST(Demangle, PyTorchElementwiseKernel) {
  const char* name =
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
      "11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
  EXPECT_EQ(demangle(name),
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
            "std::array<char*, 1ul> "
            ">(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)");
  EXPECT_EQ(readableKernelName(name),
            "at::native::vectorized_elementwise_kernel<4, FillFunctor<float>, array<char*, 1ul>>");
  // The same from the demangled text.
  EXPECT_EQ(readableKernelName(demangle(name)),
            "at::native::vectorized_elementwise_kernel<4, FillFunctor<float>, array<char*, 1ul>>");
}

TEST(Demangle, AnonymousNamespacesAndLengthLimit) {
  const char* name =
      "_ZN2at6native12_GLOBAL__N_125multi_tensor_apply_kernelINS1_18TensorListMetadataILi2EEENS1_"
      "14UnaryOpFunctorIfLi2E"
      "Li1ELi1EEEJNS0_4CopyIffEEEEEvT_T0_DpT1_";
  EXPECT_EQ(readableKernelName(name, {.max_length = 200}),
            "at::native::multi_tensor_apply_kernel<TensorListMetadata<2>, UnaryOpFunctor<float, 2, "
            "1, 1>, Copy<float, "
            "float>>");
  EXPECT_EQ(readableKernelName(name),
            "at::native::multi_tensor_apply_kernel<TensorListMetadata<2>, UnaryOpFunctor<float, 2, "
            "1, 1>, ...>");
  EXPECT_EQ(readableKernelName(name, {.max_length = 60}),
            "at::native::multi_tensor_apply_kernel<...>");
}

TEST(Demangle, TemplateDepthLimit) {
  const char* name = "_ZN7cutlass6KernelINS_4gemm6kernel4GemmIiEEEEvNT_6ParamsE";
  EXPECT_EQ(demangle(name),
            "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<int> "
            ">(cutlass::gemm::kernel::Gemm<int>::Params)");
  EXPECT_EQ(readableKernelName(name), "cutlass::Kernel<Gemm<int>>");
  EXPECT_EQ(readableKernelName(name, {.max_template_depth = 1}), "cutlass::Kernel<Gemm<...>>");
  EXPECT_EQ(readableKernelName(name, {.max_template_depth = 0}), "cutlass::Kernel<...>");
  EXPECT_EQ(readableKernelName(name, {.strip_argument_namespaces = false}),
            "cutlass::Kernel<cutlass::gemm::kernel::Gemm<int>>");
}

TEST(Demangle, NestedTypeInsideArguments) {
  EXPECT_EQ(readableKernelName("void k<a::Gemm<int>::Params, 3>(int)"), "k<Params, 3>");
  EXPECT_EQ(readableKernelName("void k<void (*)(a::B), 3>(int)"), "k<void (*)(B), 3>");
}

TEST(Demangle, AbiTagsAndQualifiers) {
  EXPECT_EQ(demangle("_ZNK3foo3barB5cxx11Ev"), "foo::bar[abi:cxx11]() const");
  EXPECT_EQ(readableKernelName("_ZNK3foo3barB5cxx11Ev"), "foo::bar");
}

TEST(Demangle, OperatorNames) {
  EXPECT_EQ(readableKernelName("void ns::Functor<int>::operator()(int) const"),
            "ns::Functor<int>::operator()");
  EXPECT_EQ(readableKernelName("bool ns::operator<<int>(int, int)"), "ns::operator<<int>");
}

TEST(Demangle, LambdaInsideTemplateArguments) {
  std::string in =
      "void at::native::elementwise_kernel<128, 4, "
      "at::native::gpu_kernel_impl<at::native::AddFunctor<float> >("
      "at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1}>(int, "
      "at::native::gpu_kernel_impl<at::native::AddFunctor<float> >(at::TensorIteratorBase&, "
      "at::native::AddFunctor<float> const&)::{lambda(int)#1})";
  EXPECT_EQ(
      readableKernelName(in, {.max_length = 300}),
      "at::native::elementwise_kernel<128, 4, gpu_kernel_impl<AddFunctor<...>>::{lambda(int)#1}>");
  EXPECT_EQ(readableKernelName(in, {.max_length = 60}),
            "at::native::elementwise_kernel<128, 4, ...>");
}

}  // namespace
}  // namespace gpufl
