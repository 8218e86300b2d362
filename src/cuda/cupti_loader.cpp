#include "cuda/cupti_loader.hpp"
#include "cuda/cupti_symbol.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>

namespace gpufl::cuda {
namespace {

constexpr const char* kSoname = "libcupti.so.13";
constexpr const char* kUnversioned = "libcupti.so";

// The directory of the object this code lives in (libgpufl.so, the Python extension, or a test
// binary).
std::string ownDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ownDirectory), &info) == 0 || info.dli_fname == nullptr)
    return "";
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(info.dli_fname, ec);
  if (ec) p = info.dli_fname;
  return p.parent_path().string();
}

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

std::vector<std::string> cuptiSearchDirectories() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v) {
      dirs.push_back(std::string(v) + "/lib64");
      dirs.push_back(std::string(v) + "/extras/CUPTI/lib64");
    }
  }
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("/usr/local/cuda/extras/CUPTI/lib64");
  if (std::string own = ownDirectory(); !own.empty()) {
    for (const char* rel : {"/../nvidia/cuda_cupti/lib", "/../../nvidia/cuda_cupti/lib",
                            "/../nvidia/cu13/lib", "/../../nvidia/cu13/lib"}) {
      std::error_code ec;
      std::filesystem::path p = std::filesystem::weakly_canonical(own + rel, ec);
      dirs.push_back(ec ? own + rel : p.string());
    }
  }
  return dirs;
}

CuptiLibrary loadCuptiLibrary(bool reuse_loaded) {
  CuptiLibrary lib;
  std::string looked;
  bool found = false;
  // 0. Already in the process: use that copy (RTLD_NOLOAD never loads).
  if (void* h = reuse_loaded ? dlopen(kSoname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) : nullptr) {
    lib.handle = h;
    lib.path = kSoname;
    found = true;
  }
  if (!found) {
    if (const char* env = std::getenv("GPUFL_CUPTI_LIB"); env != nullptr && *env) {
      // 1. An explicit choice is the only one tried: silently falling back would hide a wrong
      // setting.
      dlerror();
      if (void* h = dlopen(env, RTLD_NOW | RTLD_LOCAL)) {
        lib.handle = h;
        lib.path = env;
        found = true;
      } else {
        const char* err = dlerror();
        lib.error = std::string(kSoname) + " not found (looked in GPUFL_CUPTI_LIB=" + env + ": " +
                    (err != nullptr ? err : "cannot load") + ")";
        return lib;
      }
    }
  }
  // 2. The loader's own search.
  if (!found) found = tryOpen(lib, kSoname, looked) || tryOpen(lib, kUnversioned, looked);
  // 3., 4. Toolkit and pip-wheel directories.
  if (!found) {
    for (const std::string& dir : cuptiSearchDirectories()) {
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) {
        looked += ", " + dir;
        continue;
      }
      if (tryOpen(lib, dir + "/" + kSoname, looked) ||
          tryOpen(lib, dir + "/" + kUnversioned, looked)) {
        found = true;
        break;
      }
    }
  }
  if (!found) {
    lib.error =
        std::string(kSoname) + " not found (looked in " + looked +
        "; set GPUFL_CUPTI_LIB to its path, or install the CUDA toolkit or nvidia-cuda-cupti)";
    return lib;
  }
  resolve(lib);
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
