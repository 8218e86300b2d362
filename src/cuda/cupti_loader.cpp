#include "cuda/cupti_loader.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>

#include "cuda/cupti_symbol.hpp"

namespace gpufl::cuda {
namespace {

constexpr const char* kSoname = "libcupti.so.13";
constexpr const char* kUnversioned = "libcupti.so";

void resolve(CuptiLibrary& lib) {
#define GPUFL_CUPTI_RESOLVE(name)                                           \
  lib.name = reinterpret_cast<decltype(&::name)>(dlsym(lib.handle, #name)); \
  if (lib.name == nullptr) lib.missing.emplace_back(#name);
  GPUFL_CUPTI_FUNCTIONS(GPUFL_CUPTI_RESOLVE)
#undef GPUFL_CUPTI_RESOLVE
  if (lib.cuptiGetVersion == nullptr || lib.cuptiGetVersion(&lib.version) != CUPTI_SUCCESS)
    lib.version = 0;
  // The file the loader actually mapped (a soname resolves to a full path), for
  // NVTX_INJECTION64_PATH, which must name this very copy.
  struct link_map* map = nullptr;
  if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    std::error_code ec;  // a relative GPUFL_CUPTI_LIB stays relative in l_name
    std::filesystem::path p = std::filesystem::absolute(map->l_name, ec);
    lib.file = ec ? std::string() : p.string();
  }
}

// Tries `name`; on failure adds what was tried to `looked`.
bool tryOpen(CuptiLibrary& lib, const std::string& name, std::string& looked) {
  dlerror();
  if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    lib.handle = h;
    lib.path = name;
    return true;
  }
  if (!looked.empty()) looked += ", ";
  looked += name;
  return false;
}

std::string firstMissing(const CuptiLibrary& lib, std::initializer_list<const char*> names) {
  for (const char* n : names)
    for (const std::string& m : lib.missing)
      if (m == n) return m;
  return "";
}

}  // namespace

std::string cuptiOwnDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiOwnDirectory), &info) == 0 || info.dli_fname == nullptr)
    return "";
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(info.dli_fname, ec);
  if (ec) p = info.dli_fname;
  return p.parent_path().string();
}

CuptiSearchPlan cuptiSearchPlan(const CuptiGetEnv& getenv, const std::string& own_directory) {
  auto env = [&](const char* name) -> std::string {
    const char* v = getenv ? getenv(name) : nullptr;
    return v != nullptr ? v : "";
  };
  CuptiSearchPlan plan;
  // 1. An explicit choice is the only one tried: silently falling back would hide a wrong setting.
  plan.explicit_file = env("GPUFL_CUPTI_LIB");
  if (!plan.explicit_file.empty()) return plan;
  auto searchDirectory = [&](const std::string& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) {
      plan.absent.push_back(dir);
      return;
    }
    plan.files.push_back(dir + "/" + kSoname);
    plan.files.push_back(dir + "/" + kUnversioned);
  };
  // 2. The directories the host prefers (the Python package: the pip wheels PyTorch loads from).
  const std::string preferred = env("GPUFL_CUPTI_DIRS");
  for (size_t at = 0; at <= preferred.size();) {
    size_t end = preferred.find(':', at);
    if (end == std::string::npos) end = preferred.size();
    if (end > at) searchDirectory(preferred.substr(at, end - at));
    at = end + 1;
  }
  // 3. The loader's own search.
  plan.files.push_back(kSoname);
  plan.files.push_back(kUnversioned);
  // 4. The toolkit.
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (std::string root = env(var); !root.empty()) {
      searchDirectory(root + "/lib64");
      searchDirectory(root + "/extras/CUPTI/lib64");
    }
  }
  searchDirectory("/usr/local/cuda/lib64");
  searchDirectory("/usr/local/cuda/extras/CUPTI/lib64");
  // 5. The pip wheel next to gpufl's own object.
  if (!own_directory.empty()) {
    for (const char* rel : {"/../nvidia/cuda_cupti/lib", "/../../nvidia/cuda_cupti/lib",
                            "/../nvidia/cu13/lib", "/../../nvidia/cu13/lib"}) {
      std::error_code ec;
      std::filesystem::path p = std::filesystem::weakly_canonical(own_directory + rel, ec);
      searchDirectory(ec ? own_directory + rel : p.string());
    }
  }
  return plan;
}

CuptiLibrary loadCuptiLibrary(bool reuse_loaded) {
  CuptiLibrary lib;
  // 0. Already in the process: use that copy (RTLD_NOLOAD never loads).
  if (void* h = reuse_loaded ? dlopen(kSoname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) : nullptr) {
    lib.handle = h;
    lib.path = kSoname;
    resolve(lib);
    return lib;
  }
  const CuptiSearchPlan plan =
      cuptiSearchPlan([](const char* name) { return std::getenv(name); }, cuptiOwnDirectory());
  if (!plan.explicit_file.empty()) {
    dlerror();
    if (void* h = dlopen(plan.explicit_file.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      lib.handle = h;
      lib.path = plan.explicit_file;
      resolve(lib);
    } else {
      const char* err = dlerror();
      lib.error = std::string(kSoname) +
                  " not found (looked in GPUFL_CUPTI_LIB=" + plan.explicit_file + ": " +
                  (err != nullptr ? err : "cannot load") + ")";
    }
    return lib;
  }
  std::string looked;
  for (const std::string& file : plan.files) {
    if (tryOpen(lib, file, looked)) {
      resolve(lib);
      return lib;
    }
  }
  for (const std::string& dir : plan.absent) looked += ", " + dir;
  lib.error =
      std::string(kSoname) + " not found (looked in " + looked +
      "; set GPUFL_CUPTI_LIB to its path, or install the CUDA toolkit or nvidia-cuda-cupti)";
  return lib;
}

const CuptiLibrary& cuptiLibrary() {
  static const CuptiLibrary lib = loadCuptiLibrary();
  return lib;
}

bool CuptiLibrary::has(CuptiFeature feature, std::string* why) const {
  if (!loaded()) {
    if (why) *why = error;
    return false;
  }
  std::string m;
#define GPUFL_CUPTI_NAME(name) #name,
  switch (feature) {
    case CuptiFeature::Tracing:
      m = firstMissing(*this, {GPUFL_CUPTI_TRACING(GPUFL_CUPTI_NAME)});
      break;
    case CuptiFeature::SassMetrics:
      m = firstMissing(*this, {GPUFL_CUPTI_TRACING(GPUFL_CUPTI_NAME) GPUFL_CUPTI_PROFILER(
                                  GPUFL_CUPTI_NAME) GPUFL_CUPTI_SASS_METRICS(GPUFL_CUPTI_NAME)});
      break;
    case CuptiFeature::PcSampling:
      m = firstMissing(
          *this, {GPUFL_CUPTI_TRACING(GPUFL_CUPTI_NAME) GPUFL_CUPTI_PC_SAMPLING(GPUFL_CUPTI_NAME)});
      break;
    case CuptiFeature::RangeProfiler:
      m = firstMissing(*this, {GPUFL_CUPTI_TRACING(GPUFL_CUPTI_NAME) GPUFL_CUPTI_PROFILER(
                                  GPUFL_CUPTI_NAME) GPUFL_CUPTI_RANGE_PROFILER(GPUFL_CUPTI_NAME)});
      break;
  }
#undef GPUFL_CUPTI_NAME
  if (m.empty()) return true;
  if (why) *why = "libcupti too old: " + m + " missing (" + path + ")";
  return false;
}

void* loadedCuptiSymbol(const char* name) noexcept {
  try {
    const CuptiLibrary& lib = cuptiLibrary();
    return lib.loaded() ? dlsym(lib.handle, name) : nullptr;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace gpufl::cuda
