// The run-time CUPTI loader: on this machine it finds libcupti and resolves every function gpufl
// calls; a wrong GPUFL_CUPTI_LIB or a library without CUPTI's functions gives a reason a user can
// act on.
#include "cuda/cupti_loader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "cuda/cupti_api.hpp"
#include "cuda/cupti_symbol.hpp"

namespace gpufl::cuda {
namespace {

// Sets (or unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CuptiLoader, FindsThisMachinesLibcuptiAndResolvesEveryFunction) {
  const CuptiLibrary& lib = cuptiLibrary();
  if (!lib.loaded()) GTEST_SKIP() << "no libcupti on this machine: " << lib.error;
  EXPECT_TRUE(lib.error.empty()) << lib.error;
  EXPECT_FALSE(lib.path.empty());
  EXPECT_GT(lib.version, 0u);
  std::string missing;
  for (const std::string& m : lib.missing) missing += m + " ";
  EXPECT_TRUE(lib.missing.empty()) << "missing: " << missing;
#define GPUFL_CUPTI_CHECK(name) EXPECT_NE(lib.name, nullptr) << #name;
  GPUFL_CUPTI_FUNCTIONS(GPUFL_CUPTI_CHECK)
#undef GPUFL_CUPTI_CHECK
  for (CuptiFeature f : {CuptiFeature::Tracing, CuptiFeature::SassMetrics, CuptiFeature::PcSampling,
                         CuptiFeature::RangeProfiler}) {
    std::string why;
    EXPECT_TRUE(lib.has(f, &why)) << why;
  }
  // The mapped file, as NVTX_INJECTION64_PATH needs it: absolute and there.
  ASSERT_FALSE(lib.file.empty());
  EXPECT_EQ(lib.file[0], '/') << lib.file;
  EXPECT_TRUE(std::filesystem::exists(lib.file)) << lib.file;
  // NVTX's entry point, as the injection library forwards to it.
  EXPECT_NE(loadedCuptiSymbol("InitializeInjectionNvtx2"), nullptr);
  EXPECT_EQ(loadedCuptiSymbol("gpuflNoSuchFunction"), nullptr);
  // The forwarders reach the library.
  uint32_t version = 0;
  EXPECT_EQ(cupti::cuptiGetVersion(&version), CUPTI_SUCCESS);
  EXPECT_EQ(version, lib.version);
}

TEST(CuptiLoader, ReloadingReusesTheLoadedCopy) {
  const CuptiLibrary& first = cuptiLibrary();
  if (!first.loaded()) GTEST_SKIP() << first.error;
  // Even with a different choice in the environment, the copy already in the process is the one
  // used.
  ScopedEnv env("GPUFL_CUPTI_LIB", "/nonexistent/libcupti.so.13");
  CuptiLibrary again = loadCuptiLibrary();
  ASSERT_TRUE(again.loaded()) << again.error;
  EXPECT_EQ(again.cuptiSubscribe, first.cuptiSubscribe);
}

TEST(CuptiLoader, WrongGpuflCuptiLibSaysWhy) {
  ScopedEnv env("GPUFL_CUPTI_LIB", "/nonexistent");
  CuptiLibrary lib = loadCuptiLibrary(/*reuse_loaded=*/false);
  EXPECT_FALSE(lib.loaded());
  EXPECT_EQ(lib.cuptiSubscribe, nullptr);
  EXPECT_NE(lib.error.find("libcupti.so.13 not found"), std::string::npos) << lib.error;
  EXPECT_NE(lib.error.find("GPUFL_CUPTI_LIB=/nonexistent"), std::string::npos) << lib.error;
  std::string why;
  EXPECT_FALSE(lib.has(CuptiFeature::Tracing, &why));
  EXPECT_EQ(why, lib.error);
}

TEST(CuptiLoader, LibraryWithoutCuptiFunctionsIsTooOld) {
  ScopedEnv env("GPUFL_CUPTI_LIB", "libm.so.6");
  CuptiLibrary lib = loadCuptiLibrary(/*reuse_loaded=*/false);
  ASSERT_TRUE(lib.loaded()) << lib.error;
  std::string why;
  EXPECT_FALSE(lib.has(CuptiFeature::Tracing, &why));
  EXPECT_EQ(why, "libcupti too old: cuptiGetVersion missing (libm.so.6)");
  EXPECT_FALSE(lib.has(CuptiFeature::SassMetrics, &why));
  EXPECT_NE(why.find("libcupti too old: "), std::string::npos) << why;
}

TEST(CuptiLoader, SearchDirectoriesFollowTheDocumentedOrder) {
  ScopedEnv home("CUDA_HOME", "/opt/cuda-home");
  ScopedEnv path("CUDA_PATH", nullptr);
  auto dirs = cuptiSearchDirectories();
  ASSERT_GE(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/opt/cuda-home/lib64");
  EXPECT_EQ(dirs[1], "/opt/cuda-home/extras/CUPTI/lib64");
  EXPECT_EQ(dirs[2], "/usr/local/cuda/lib64");
  EXPECT_EQ(dirs[3], "/usr/local/cuda/extras/CUPTI/lib64");
  bool wheel = false;
  for (const auto& d : dirs) wheel |= d.find("nvidia/cuda_cupti/lib") != std::string::npos;
  EXPECT_TRUE(wheel);
}

}  // namespace
}  // namespace gpufl::cuda
