#include "doctor/system_probe.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "doctor/probe_kernel.hpp"

namespace gpufl::doctor {
namespace {

namespace fs = std::filesystem;

class CuptiOrigin : public ::testing::Test {
 protected:
  fs::path root_ = fs::temp_directory_path() / ("gpufl_origin_" + std::to_string(::getpid()));
  void SetUp() override { fs::remove_all(root_); }
  void TearDown() override { fs::remove_all(root_); }
  std::string touch(const fs::path& rel) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << "";
    return (root_ / rel).string();
  }
};

TEST_F(CuptiOrigin, ThePipWheelWithItsVersion) {
  std::string lib = touch("site-packages/nvidia/cu13/lib/libcupti.so.13");
  fs::create_directories(root_ / "site-packages/nvidia_cuda_cupti-13.0.85.dist-info");
  EXPECT_EQ(cuptiOrigin(lib, "", ""), "the nvidia-cuda-cupti 13.0.85 pip wheel");
  EXPECT_EQ(cuptiWheelVersion(lib), "13.0.85");
  EXPECT_EQ(cuptiWheelVersion(touch("usr/local/cuda/lib64/libcupti.so.13")), "");
  EXPECT_EQ(distVersion((root_ / "site-packages").string(), "nvidia_cuda_cupti"), "13.0.85");
  EXPECT_EQ(distVersion((root_ / "site-packages").string(), "nvidia_nvtx"), "");
  // Found through the directories gpufl's Python package prefers.
  EXPECT_EQ(cuptiOrigin(lib, "", "/nowhere:" + (root_ / "site-packages/nvidia/cu13/lib").string()),
            "the nvidia-cuda-cupti 13.0.85 pip wheel, through GPUFL_CUPTI_DIRS");
}

TEST_F(CuptiOrigin, TheOlderWheelLayoutWithoutDistInfo) {
  std::string lib = touch("site-packages/nvidia/cuda_cupti/lib/libcupti.so.13");
  EXPECT_EQ(cuptiOrigin(lib, "", ""), "the nvidia-cuda-cupti pip wheel");
}

TEST_F(CuptiOrigin, TheToolkitTheLoaderOrAnExplicitFile) {
  EXPECT_EQ(cuptiOrigin(touch("usr/local/cuda-13.0/lib64/libcupti.so.13"), "", ""),
            "the CUDA toolkit");
  EXPECT_EQ(cuptiOrigin(touch("opt/libs/libcupti.so.13"), "", ""),
            "the dynamic loader's search path");
  EXPECT_EQ(cuptiOrigin(touch("opt/libs/libcupti.so.13"), "/opt/libs/libcupti.so.13", ""),
            "GPUFL_CUPTI_LIB");
}

TEST(ProbeKernel, ThePtxAssembles) {
#ifdef GPUFL_PTXAS
  fs::path dir = fs::temp_directory_path() / ("gpufl_ptx_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "probe.ptx") << probeKernelPtx();
  std::string cmd = std::string(GPUFL_PTXAS) + " -arch=sm_90 " + (dir / "probe.ptx").string() +
                    " -o " + (dir / "probe.cubin").string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_TRUE(fs::exists(dir / "probe.cubin"));
  fs::remove_all(dir);
#else
  GTEST_SKIP() << "no ptxas here";
#endif
}

TEST(ProbeKernel, WithoutADriverItSaysSo) {
  if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(h);
    GTEST_SKIP() << "a driver is here";
  }
  std::string error;
  EXPECT_FALSE(runProbeKernel(&error));
  EXPECT_EQ(error, "no NVIDIA driver (libcuda.so.1 not found)");
}

}  // namespace
}  // namespace gpufl::doctor
