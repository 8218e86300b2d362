// The run-time CUPTI loader: on this machine it finds libcupti and resolves every function gpufl
// calls; a wrong GPUFL_CUPTI_LIB or a library without CUPTI's functions gives a reason a user can
// act on.
#include "cuda/cupti_loader.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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

// A fake tree: <root>/site/gpufl is gpufl's own directory, beside the two wheel layouts; a
// preferred directory; a CUDA_HOME with both toolkit layouts. Files need not be libraries: the plan
// lists what would be tried, the loader tries it.
class CuptiSearchTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("gpufl_cupti_tree_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    for (const char* d :
         {"site/gpufl", "site/nvidia/cu13/lib", "site/nvidia/cuda_cupti/lib",
          "other/nvidia/cu13/lib", "cuda-home/lib64", "cuda-home/extras/CUPTI/lib64"})
      std::filesystem::create_directories(root_ / d);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string at(const char* rel) const { return (root_ / rel).string(); }
  CuptiGetEnv env(std::map<std::string, std::string> vars) const {
    return [vars = std::move(vars)](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
  // Position of `file` in the plan (the test fails when it is not there).
  static size_t index(const CuptiSearchPlan& plan, const std::string& file) {
    auto it = std::find(plan.files.begin(), plan.files.end(), file);
    EXPECT_NE(it, plan.files.end()) << file << " is not searched";
    return static_cast<size_t>(it - plan.files.begin());
  }
  std::filesystem::path root_;
};

TEST_F(CuptiSearchTree, TheOrderIsPreferredLoaderToolkitThenWheelsBesideGpufl) {
  const CuptiSearchPlan plan = cuptiSearchPlan(
      env({{"GPUFL_CUPTI_DIRS", at("other/nvidia/cu13/lib") + ":" + at("missing/lib") +
                                    "::" + at("site/nvidia/cu13/lib")},
           {"CUDA_HOME", at("cuda-home")}}),
      at("site/gpufl"));
  EXPECT_TRUE(plan.explicit_file.empty());
  // 2. preferred directories in the given order, .so.13 before the unversioned name.
  ASSERT_GE(plan.files.size(), 6u);
  EXPECT_EQ(plan.files[0], at("other/nvidia/cu13/lib") + "/libcupti.so.13");
  EXPECT_EQ(plan.files[1], at("other/nvidia/cu13/lib") + "/libcupti.so");
  EXPECT_EQ(plan.files[2], at("site/nvidia/cu13/lib") + "/libcupti.so.13");
  // 3. the dynamic loader, 4. the toolkit, 5. the wheels beside gpufl (cuda_cupti before cu13).
  EXPECT_EQ(plan.files[4], "libcupti.so.13");
  EXPECT_EQ(plan.files[5], "libcupti.so");
  const size_t home = index(plan, at("cuda-home/lib64") + "/libcupti.so.13");
  const size_t extras = index(plan, at("cuda-home/extras/CUPTI/lib64") + "/libcupti.so.13");
  const size_t wheel = index(plan, at("site/nvidia/cuda_cupti/lib") + "/libcupti.so.13");
  EXPECT_LT(5u, home);
  EXPECT_LT(home, extras);
  EXPECT_LT(extras, wheel);
  // The wheel beside gpufl in the cu13 layout comes last, already searched in step 2 though.
  EXPECT_EQ(plan.files.back(), at("site/nvidia/cu13/lib") + "/libcupti.so");
  // /usr/local/cuda sits between CUDA_HOME and the wheels, whether this machine has it or not.
  const std::string usr = "/usr/local/cuda/lib64";
  if (std::filesystem::is_directory(usr)) {
    const size_t u = index(plan, usr + "/libcupti.so.13");
    EXPECT_LT(extras, u);
    EXPECT_LT(u, wheel);
  } else {
    EXPECT_NE(std::find(plan.absent.begin(), plan.absent.end(), usr), plan.absent.end());
  }
  // A directory that is not there is named, not tried; empty entries (::) are nothing.
  EXPECT_EQ(plan.absent.front(), at("missing/lib"));
  for (const std::string& f : plan.files) EXPECT_EQ(f.find("missing/lib"), std::string::npos) << f;
}

TEST_F(CuptiSearchTree, AnExplicitLibraryIsTheOnlyCandidate) {
  const CuptiSearchPlan plan =
      cuptiSearchPlan(env({{"GPUFL_CUPTI_LIB", "/opt/mine/libcupti.so"},
                           {"GPUFL_CUPTI_DIRS", at("site/nvidia/cu13/lib")}}),
                      at("site/gpufl"));
  EXPECT_EQ(plan.explicit_file, "/opt/mine/libcupti.so");
  EXPECT_TRUE(plan.files.empty());
}

TEST_F(CuptiSearchTree, WithoutPreferenceTheLoaderComesFirst) {
  const CuptiSearchPlan plan = cuptiSearchPlan(env({}), at("site/gpufl"));
  ASSERT_GE(plan.files.size(), 2u);
  EXPECT_EQ(plan.files[0], "libcupti.so.13");
  EXPECT_EQ(plan.files[1], "libcupti.so");
  index(plan, at("site/nvidia/cuda_cupti/lib") + "/libcupti.so.13");
}

TEST_F(CuptiSearchTree, APreferredDirectoryThatCannotLoadFallsThrough) {
  // A file that is not a library in the preferred directory: the search goes on to the next step.
  std::ofstream(at("site/nvidia/cu13/lib") + "/libcupti.so.13") << "not an ELF file";
  ScopedEnv lib("GPUFL_CUPTI_LIB", nullptr);
  ScopedEnv dirs("GPUFL_CUPTI_DIRS", at("site/nvidia/cu13/lib").c_str());
  CuptiLibrary loaded = loadCuptiLibrary(/*reuse_loaded=*/false);
  if (loaded.loaded()) {
    EXPECT_NE(loaded.path, at("site/nvidia/cu13/lib") + "/libcupti.so.13");
  } else {
    EXPECT_NE(loaded.error.find(at("site/nvidia/cu13/lib") + "/libcupti.so.13"), std::string::npos)
        << loaded.error;
  }
}

}  // namespace
}  // namespace gpufl::cuda
