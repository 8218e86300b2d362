// Why an engine was refused, in one line a user can act on: the function `gpufl trace`,
// `gpufl.init` and `gpufl doctor` share. An engine that fails writes a note whose reason is CUPTI's
// or the driver's words ("cuptiPCSamplingEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (...)"); this
// adds what to change, from what the process can see of its permissions (the driver's profiling
// restriction, root, CAP_SYS_ADMIN, a container).
//
// GPU-free: reads only /proc and a few marker files (under an injectable root, for tests).
#pragma once

#include <string>
#include <string_view>

#include "doctor/doctor_facts.hpp"

namespace gpufl::doctor {

// What a failure reason most likely means.
enum class FailureKind {
  Permission,     // counters restricted to admin users (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
  NoDriver,       // libcuda.so.1 missing
  NoGpu,          // a driver but no usable device (cuInit failed, CUPTI_ERROR_UNKNOWN without GPU)
  NoCupti,        // libcupti.so.13 not found
  OldCupti,       // libcupti lacks a function the engine needs
  OtherProfiler,  // another CUPTI subscriber (Nsight, torch.profiler) holds the GPU's profiling
  GpuBusy,        // another process samples the GPU (PC sampling is one process at a time)
  Unsupported,    // the GPU or driver does not support the feature
  Other,
};
FailureKind classifyFailure(std::string_view reason);

// /proc/driver/nvidia/params' RmProfilingAdminOnly: true restricted, false open, nullopt absent.
std::optional<bool> parseProfilingAdminOnly(std::string_view params_text);
// CAP_SYS_ADMIN (bit 21) in /proc/self/status' CapEff; false when the line is missing or malformed.
bool parseCapSysAdmin(std::string_view status_text);
// The container runtime /proc/1/cgroup names ("docker", "kubernetes", "podman", "containerd",
// "lxc"), or "".
std::string containerFromCgroup(std::string_view cgroup_text);

// This process's permissions. `fs_root` prefixes every path read (tests pass a fake tree); the
// effective uid is passed in for the same reason (-1: the process's own).
PermissionFacts readPermissionFacts(const std::string& fs_root = "", int euid = -1);

// What to change so that the GPU's counters are allowed, for `p` ("" when nothing is known to be
// wrong: counters open, or this process is admin).
std::string permissionAdvice(const PermissionFacts& p);

// "<engine> refused: <what it means>; <what to change>" in one line, from the engine's failure
// text. Falls back to the failure itself and `gpufl doctor` when the failure is not one it knows.
std::string engineRefusalReason(std::string_view engine, std::string_view failure,
                                const PermissionFacts& p);
// The same with this process's permissions (readPermissionFacts()).
std::string engineRefusalReason(std::string_view engine, std::string_view failure);

}  // namespace gpufl::doctor
