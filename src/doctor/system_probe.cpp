#include "doctor/system_probe.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "doctor/engine_refusal.hpp"
#include "gpufl/version.hpp"
#include "nvml/nvml_api.hpp"
#if GPUFL_DOCTOR_HAVE_CUDA
#include "cuda/cupti_loader.hpp"
#endif

#ifndef GPUFL_DOCTOR_CUDA_HEADERS
#define GPUFL_DOCTOR_CUDA_HEADERS "none"
#endif

namespace gpufl::doctor {
namespace {

namespace fs = std::filesystem;

// The absolute path of the file a dlopen handle mapped ("" when unknown).
std::string mappedFile(void* handle) {
  struct link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr ||
      map->l_name == nullptr)
    return "";
  std::error_code ec;
  fs::path p = fs::canonical(map->l_name, ec);
  return ec ? std::string(map->l_name) : p.string();
}

std::string envOr(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// The few driver entry points the doctor itself calls, declared with plain types (CUresult and
// CUdevice are ints in the C ABI) so this file needs no cuda.h and works in a build without the
// CUDA backend too.
struct Driver {
  int (*init)(unsigned) = nullptr;
  int (*driverGetVersion)(int*) = nullptr;
  int (*deviceGetCount)(int*) = nullptr;
  int (*deviceGet)(int*, int) = nullptr;
  int (*deviceGetName)(char*, int, int) = nullptr;
  int (*deviceGetAttribute)(int*, int, int) = nullptr;
  int (*getErrorName)(int, const char**) = nullptr;
  std::string errorText(int r) const {
    const char* name = nullptr;
    if (getErrorName != nullptr && getErrorName(r, &name) == 0 && name != nullptr)
      return std::string(name) + " (" + std::to_string(r) + ")";
    return "CUDA error " + std::to_string(r);
  }
};
constexpr int kAttrCcMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrCcMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

template <typename F>
void bind(void* handle, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(handle, name));
}

// "580.95.05" from /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX ... Kernel Module
// 580.95.05  ..."), "" when unreadable.
std::string procDriverRelease() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "";
  auto at = line.find("Kernel Module");
  if (at == std::string::npos) return "";
  at = line.find_first_of("0123456789", at);
  if (at == std::string::npos) return "";
  auto end = line.find_first_of(" \t", at);
  return line.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

std::string distVersion(const std::string& site_packages, const std::string& dist) {
  std::error_code ec;
  const std::string head = dist + "-";
  for (const auto& entry : fs::directory_iterator(site_packages, ec)) {
    std::string name = entry.path().filename().string();
    const std::string tail = ".dist-info";
    if (name.size() > head.size() + tail.size() && name.rfind(head, 0) == 0 &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
      return name.substr(head.size(), name.size() - head.size() - tail.size());
  }
  return "";
}

std::string cuptiWheelVersion(const std::string& file) {
  const fs::path dir = fs::path(file).parent_path();
  if (dir.filename() != "lib" || dir.parent_path().parent_path().filename() != "nvidia") return "";
  return distVersion(dir.parent_path().parent_path().parent_path().string(), "nvidia_cuda_cupti");
}

std::string cuptiOrigin(const std::string& file, const std::string& cupti_lib,
                        const std::string& cupti_dirs) {
  if (!cupti_lib.empty()) return "GPUFL_CUPTI_LIB";
  const fs::path dir = fs::path(file).parent_path();
  std::string origin;
  // The CUDA 13 wheel (nvidia/cu13/lib) and the older per-component layout (nvidia/cuda_cupti/lib).
  if (dir.filename() == "lib" && dir.parent_path().parent_path().filename() == "nvidia") {
    std::string version = cuptiWheelVersion(file);
    origin =
        "the nvidia-cuda-cupti " + (version.empty() ? std::string() : version + " ") + "pip wheel";
  } else if (file.find("cuda") != std::string::npos) {
    origin = "the CUDA toolkit";
  } else {
    origin = "the dynamic loader's search path";
  }
  for (size_t at = 0; at <= cupti_dirs.size();) {
    size_t end = cupti_dirs.find(':', at);
    if (end == std::string::npos) end = cupti_dirs.size();
    std::error_code ec;
    if (end > at && fs::equivalent(cupti_dirs.substr(at, end - at), dir, ec))
      return origin + ", through GPUFL_CUPTI_DIRS";
    at = end + 1;
  }
  return origin;
}

BuildFacts SystemProbe::build() {
  BuildFacts b;
  b.gpufl_version = kVersion;
  b.cuda_backend = GPUFL_DOCTOR_HAVE_CUDA != 0;
  b.headers_from = GPUFL_DOCTOR_CUDA_HEADERS;
  return b;
}

DriverFacts SystemProbe::driver() {
  DriverFacts d;
  d.release = procDriverRelease();
  dlerror();
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    // The loader's words only when they say more than "not found" (a wrong ELF class, a broken
    // install).
    const char* why = dlerror();
    std::string detail = why != nullptr ? why : "";
    if (detail.find("cannot open shared object file") != std::string::npos) detail.clear();
    d.library.error =
        "no NVIDIA driver (libcuda.so.1 not found" + (detail.empty() ? "" : ": " + detail) + ")";
    return d;
  }
  d.library.found = true;
  d.library.path = mappedFile(h);
  d.library.origin = "the NVIDIA driver";
  d.library.version = d.release;
  Driver drv;
  bind(h, drv.init, "cuInit");
  bind(h, drv.driverGetVersion, "cuDriverGetVersion");
  bind(h, drv.deviceGetCount, "cuDeviceGetCount");
  bind(h, drv.deviceGet, "cuDeviceGet");
  bind(h, drv.deviceGetName, "cuDeviceGetName");
  bind(h, drv.deviceGetAttribute, "cuDeviceGetAttribute");
  bind(h, drv.getErrorName, "cuGetErrorName");
  if (drv.init == nullptr || drv.deviceGetCount == nullptr || drv.deviceGet == nullptr) {
    d.init_error = "libcuda.so.1 lacks cuInit/cuDeviceGetCount/cuDeviceGet (a stub, not a driver?)";
    return d;
  }
  if (drv.driverGetVersion != nullptr) drv.driverGetVersion(&d.cuda_version);
  if (int r = drv.init(0); r != 0) {
    d.init_error = drv.errorText(r);
    return d;
  }
  int count = 0;
  if (int r = drv.deviceGetCount(&count); r != 0) {
    d.init_error = "cuDeviceGetCount: " + drv.errorText(r);
    return d;
  }
  for (int i = 0; i < count; ++i) {
    int dev = 0;
    if (drv.deviceGet(&dev, i) != 0) continue;
    GpuFacts g;
    char name[256] = {};
    if (drv.deviceGetName != nullptr && drv.deviceGetName(name, sizeof(name) - 1, dev) == 0)
      g.name = name;
    if (drv.deviceGetAttribute != nullptr) {
      drv.deviceGetAttribute(&g.cc_major, kAttrCcMajor, dev);
      drv.deviceGetAttribute(&g.cc_minor, kAttrCcMinor, dev);
    }
    d.gpus.push_back(g);
  }
  return d;  // libcuda stays loaded: the process's one copy, as the backend keeps it too
}

LibraryFinding SystemProbe::nvml() {
  LibraryFinding f;
  std::string reason;
  std::unique_ptr<nvml::Library> lib = nvml::Library::open(nvml::kLibraryName, &reason);
  if (!lib) {
    f.error = reason;
    return f;
  }
  void* h = dlopen(nvml::kLibraryName, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  f.path = mappedFile(h);
  f.origin = "the NVIDIA driver";
  if (nvml::Return r = lib->api().init(); r != nvml::kSuccess) {
    f.error = "nvmlInit: " + nvml::errorText(lib->api(), r);
  } else {
    f.found = true;
    using GetVersion = int (*)(char*, unsigned);
    if (auto get =
            reinterpret_cast<GetVersion>(h ? dlsym(h, "nvmlSystemGetDriverVersion") : nullptr)) {
      char text[96] = {};
      if (get(text, sizeof(text)) == nvml::kSuccess) f.version = text;
    }
    lib->api().shutdown();
  }
  if (h != nullptr) dlclose(h);
  return f;
}

CuptiFacts SystemProbe::cupti() {
  CuptiFacts c;
#if GPUFL_DOCTOR_HAVE_CUDA
  const cuda::CuptiLibrary& lib = cuda::cuptiLibrary();
  if (!lib.loaded()) {
    c.library.error = lib.error;
    return c;
  }
  c.library.found = true;
  c.library.path = lib.file.empty() ? lib.path : lib.file;
  c.library.origin =
      cuptiOrigin(c.library.path, envOr("GPUFL_CUPTI_LIB"), envOr("GPUFL_CUPTI_DIRS"));
  c.api_version = lib.version;
  c.package_version = cuptiWheelVersion(c.library.path);
  c.library.version = lib.version != 0 ? std::to_string(lib.version) : "";
  auto need = [&](const char* engine, cuda::CuptiFeature feature) {
    if (std::string why; !lib.has(feature, &why) && !c.engine_missing.count(engine))
      c.engine_missing[engine] = why;
  };
  need("None", cuda::CuptiFeature::Tracing);
  need("PcSampling", cuda::CuptiFeature::PcSampling);
  need("SassMetrics", cuda::CuptiFeature::SassMetrics);
  need("PcSamplingWithSass", cuda::CuptiFeature::SassMetrics);
  need("PcSamplingWithSass", cuda::CuptiFeature::PcSampling);
  need("RangeProfiler", cuda::CuptiFeature::RangeProfiler);
#else
  c.library.error = "this gpufl was built without the CUDA backend, so it does not load libcupti";
#endif
  return c;
}

PermissionFacts SystemProbe::permissions() {
  return readPermissionFacts();
}

}  // namespace gpufl::doctor
