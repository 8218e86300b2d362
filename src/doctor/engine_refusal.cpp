#include "doctor/engine_refusal.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpufl::doctor {
namespace {

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

bool containsAny(std::string_view text, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return contains(text, w); });
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The value of "Key: value" lines (/proc/driver/nvidia/params, /proc/self/status), or nullopt.
std::optional<std::string_view> keyValue(std::string_view text, std::string_view key) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':')
      return trim(line.substr(key.size() + 1));
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace

FailureKind classifyFailure(std::string_view r) {
  if (containsAny(r, {"INSUFFICIENT_PRIVILEGES", "ERR_NVGPUCTRPERM", "need admin", "needs admin"}))
    return FailureKind::Permission;
  if (containsAny(r, {"no NVIDIA driver", "libcuda.so.1 not found"})) return FailureKind::NoDriver;
  if (containsAny(r, {"libcupti.so.13 not found", "CUPTI unavailable"}))
    return FailureKind::NoCupti;
  if (contains(r, "libcupti too old")) return FailureKind::OldCupti;
  if (containsAny(r, {"MULTIPLE_SUBSCRIBERS", "already in use by another tool"}))
    return FailureKind::OtherProfiler;
  if (contains(r, "one process at a time")) return FailureKind::GpuBusy;
  if (containsAny(r, {"no GPU", "no CUDA device", "no usable GPU", "CUDA_ERROR_NO_DEVICE"}))
    return FailureKind::NoGpu;
  if (containsAny(r, {"NOT_SUPPORTED", "not supported", "compute capability"}))
    return FailureKind::Unsupported;
  return FailureKind::Other;
}

std::optional<bool> parseProfilingAdminOnly(std::string_view params_text) {
  auto v = keyValue(params_text, "RmProfilingAdminOnly");
  if (!v || v->empty()) return std::nullopt;
  if (*v == "0") return false;
  if (*v == "1") return true;
  return std::nullopt;
}

bool parseCapSysAdmin(std::string_view status_text) {
  auto v = keyValue(status_text, "CapEff");
  if (!v || v->empty() || v->size() > 16) return false;
  uint64_t caps = 0;
  for (char c : *v) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    caps = caps * 16 +
           static_cast<uint64_t>(std::isdigit(static_cast<unsigned char>(c))
                                     ? c - '0'
                                     : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  constexpr int kCapSysAdmin = 21;  // linux/capability.h
  return (caps >> kCapSysAdmin) & 1u;
}

std::string containerFromCgroup(std::string_view text) {
  if (contains(text, "kubepods")) return "kubernetes";
  if (contains(text, "docker")) return "docker";
  if (contains(text, "libpod")) return "podman";
  if (contains(text, "containerd")) return "containerd";
  if (contains(text, "/lxc")) return "lxc";
  return "";
}

PermissionFacts readPermissionFacts(const std::string& fs_root, int euid) {
  PermissionFacts p;
  p.profiling_admin_only =
      parseProfilingAdminOnly(readFile(fs_root + "/proc/driver/nvidia/params"));
  p.root = (euid < 0 ? static_cast<int>(geteuid()) : euid) == 0;
  p.cap_sys_admin = parseCapSysAdmin(readFile(fs_root + "/proc/self/status"));
  if (exists(fs_root + "/.dockerenv"))
    p.container = "docker";
  else if (exists(fs_root + "/run/.containerenv"))
    p.container = "podman";
  else if (exists(fs_root + "/var/run/secrets/kubernetes.io"))
    p.container = "kubernetes";
  else
    p.container = containerFromCgroup(readFile(fs_root + "/proc/1/cgroup"));
  return p;
}

std::string permissionAdvice(const PermissionFacts& p) {
  if (p.cap_sys_admin || p.profiling_admin_only == false) return "";
  std::string who = p.root ? "this process is root but lacks CAP_SYS_ADMIN"
                           : "this process is not root and lacks CAP_SYS_ADMIN";
  std::string what =
      p.profiling_admin_only == true
          ? "the driver restricts GPU performance counters to admin users "
            "(RmProfilingAdminOnly: 1) and " +
                who
          : "GPU performance counters may be restricted to admin users (the driver's "
            "RmProfilingAdminOnly could not be read) and " +
                who;
  if (!p.container.empty())
    return what + "; in a container (" + p.container +
           "), start it with --cap-add SYS_ADMIN, or have the host's admin set "
           "NVreg_RestrictProfilingToAdminUsers=0 (the host's driver decides, not the container)";
  return what +
         "; run as root (sudo -E), or have an admin set `options nvidia "
         "NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/ and reload the driver";
}

std::string engineRefusalReason(std::string_view engine, std::string_view failure,
                                const PermissionFacts& p) {
  std::string head = std::string(engine) + " refused: ";
  std::string said(trim(failure));
  switch (classifyFailure(failure)) {
    case FailureKind::Permission: {
      std::string advice = permissionAdvice(p);
      if (advice.empty())
        advice =
            "the driver refused the GPU's performance counters although this process looks "
            "allowed (a vGPU or MIG slice may forbid profiling)";
      return head + advice + " (" + said + ")";
    }
    case FailureKind::NoDriver:
      return head + said +
             (p.container.empty()
                  ? "; install the NVIDIA driver"
                  : "; start the container with --gpus all (NVIDIA Container Toolkit)");
    case FailureKind::NoGpu:
      return head + said + "; check nvidia-smi and CUDA_VISIBLE_DEVICES";
    case FailureKind::NoCupti:
      return head + said +
             "; pip install 'nvidia-cuda-cupti>=13' (or gpufl's cu13 extra), or set "
             "GPUFL_CUPTI_DIRS "
             "to the directory of libcupti.so.13";
    case FailureKind::OldCupti:
      return head + said +
             "; a newer CUPTI: pip install -U 'nvidia-cuda-cupti>=13', or GPUFL_CUPTI_DIRS";
    case FailureKind::OtherProfiler:
      return head + said +
             "; stop the other profiler (Nsight Systems/Compute, torch.profiler) for this run";
    case FailureKind::GpuBusy:
      return head + said + "; run one sampled process per GPU at a time";
    case FailureKind::Unsupported:
      return head + said +
             "; the deep engines need a GPU of compute capability 7.0 or newer, "
             "not a MIG slice";
    case FailureKind::Other:
      break;
  }
  return head + said + " (gpufl doctor checks this machine)";
}

std::string engineRefusalReason(std::string_view engine, std::string_view failure) {
  return engineRefusalReason(engine, failure, readPermissionFacts());
}

}  // namespace gpufl::doctor
