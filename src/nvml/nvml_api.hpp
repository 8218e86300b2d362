// Our own declarations of the small part of NVML GPU Flight uses, so the build needs no nvml.h, and
// a table of function pointers filled with dlopen("libnvidia-ml.so.1") at run time (tests fill it
// with fakes).
//
// Values and signatures follow the NVML API reference (nvml.h); enums are passed as int, which is
// how a C enum travels through the C ABI on every platform we build for.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace gpufl::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorFunctionNotFound = 13;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorNoData = 21;
inline constexpr Return kErrorUnknown = 999;

struct DeviceSt;           // opaque, struct nvmlDevice_st
using Device = DeviceSt*;  // nvmlDevice_t

struct Utilization {    // nvmlUtilization_t
  unsigned int gpu;     // %
  unsigned int memory;  // %
};

struct Memory {              // nvmlMemory_t (v1)
  unsigned long long total;  // bytes
  unsigned long long free;
  unsigned long long used;
};

// nvmlMemory_v2_t: `used` without the driver's reserved memory, as nvidia-smi shows it (v1's `used`
// includes the reservation: 1.56 GB against nvidia-smi's 0.92 GB on the H200, 2026-12-02).
struct MemoryV2 {
  unsigned int version;  // kMemoryV2Version
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
// NVML_STRUCT_VERSION(Memory, 2): the struct's size, and the version in the top byte.
inline constexpr unsigned int kMemoryV2Version =
    static_cast<unsigned int>(sizeof(MemoryV2)) | (2u << 24);

inline constexpr int kTemperatureGpu = 0;  // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU
inline constexpr int kClockGraphics = 0;   // nvmlClockType_t
inline constexpr int kClockSm = 1;
inline constexpr int kClockMem = 2;
inline constexpr int kPcieTxBytes = 0;  // nvmlPcieUtilCounter_t NVML_PCIE_UTIL_TX_BYTES
inline constexpr int kPcieRxBytes = 1;  // NVML_PCIE_UTIL_RX_BYTES

// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 (and _v2) fill it. (_v1 used a
// shorter struct, so it is never bound in its place.)
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kValueNotAvailable
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
inline constexpr unsigned long long kValueNotAvailable = ~0ull;  // NVML_VALUE_NOT_AVAILABLE

inline constexpr unsigned int kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned int kDeviceUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

// Events (nvmlEventSetCreate ... nvmlEventSetWait_v2): the driver's Xid errors as they happen.
struct EventSetSt;             // opaque, struct nvmlEventSet_st
using EventSet = EventSetSt*;  // nvmlEventSet_t
struct EventData {             // nvmlEventData_t
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;  // for an Xid event: the Xid
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
inline constexpr unsigned long long kEventTypeXidCriticalError =
    0x8;                                     // nvmlEventTypeXidCriticalError
inline constexpr Return kErrorTimeout = 10;  // NVML_ERROR_TIMEOUT

inline constexpr const char* kLibraryName = "libnvidia-ml.so.1";

// Every entry point we call. A null entry is a function this NVML does not have: the fields it
// reads are reported as unsupported. init, shutdown, deviceGetCount and deviceGetHandleByIndex are
// required.
struct Api {
  Return (*init)() = nullptr;                         // nvmlInit_v2
  Return (*shutdown)() = nullptr;                     // nvmlShutdown
  const char* (*errorString)(Return) = nullptr;       // nvmlErrorString
  Return (*deviceGetCount)(unsigned int*) = nullptr;  // nvmlDeviceGetCount_v2
  Return (*deviceGetHandleByIndex)(unsigned int,
                                   Device*) = nullptr;             // nvmlDeviceGetHandleByIndex_v2
  Return (*deviceGetName)(Device, char*, unsigned int) = nullptr;  // nvmlDeviceGetName
  Return (*deviceGetUuid)(Device, char*, unsigned int) = nullptr;  // nvmlDeviceGetUUID
  Return (*deviceGetUtilizationRates)(Device,
                                      Utilization*) = nullptr;  // nvmlDeviceGetUtilizationRates
  Return (*deviceGetMemoryInfo)(Device, Memory*) = nullptr;     // nvmlDeviceGetMemoryInfo
  Return (*deviceGetMemoryInfoV2)(Device,
                                  MemoryV2*) = nullptr;  // nvmlDeviceGetMemoryInfo_v2, preferred
  Return (*deviceGetTemperature)(Device, int,
                                 unsigned int*) = nullptr;  // nvmlDeviceGetTemperature, deg C
  Return (*deviceGetPowerUsage)(Device, unsigned int*) = nullptr;          // mW
  Return (*deviceGetEnforcedPowerLimit)(Device, unsigned int*) = nullptr;  // mW
  Return (*deviceGetTotalEnergyConsumption)(Device,
                                            unsigned long long*) = nullptr;  // mJ since driver load
  Return (*deviceGetClockInfo)(Device, int, unsigned int*) = nullptr;        // MHz
  Return (*deviceGetMaxClockInfo)(Device, int, unsigned int*) = nullptr;     // MHz (gpufl::bench)
  Return (*deviceGetPcieThroughput)(Device, int, unsigned int*) = nullptr;   // KB/s over 20 ms
  // nvmlDeviceGetCurrentClocksEventReasons, or the older nvmlDeviceGetCurrentClocksThrottleReasons
  // (same ABI).
  Return (*deviceGetCurrentClocksEventReasons)(Device, unsigned long long*) = nullptr;
  // nvmlDeviceGetComputeRunningProcesses_v3, or _v2 (same struct): in `*count` the capacity of the
  // array, out the number of processes (kErrorInsufficientSize when the array is too small).
  Return (*deviceGetComputeRunningProcesses)(Device, unsigned int* count, ProcessInfo*) = nullptr;
  Return (*eventSetCreate)(EventSet*) = nullptr;  // nvmlEventSetCreate
  Return (*deviceRegisterEvents)(Device, unsigned long long types,
                                 EventSet) = nullptr;  // nvmlDeviceRegisterEvents
  Return (*eventSetWait)(EventSet, EventData*,
                         unsigned int timeout_ms) = nullptr;  // nvmlEventSetWait_v2
  Return (*eventSetFree)(EventSet) = nullptr;                 // nvmlEventSetFree
};

// Text of an NVML status: the library's own string when it has nvmlErrorString, else "NVML error
// <n>".
std::string errorText(const Api& api, Return r);

// libnvidia-ml opened with dlopen; closed (dlclose) on destruction.
class Library {
 public:
  // nullptr with `reason` set when the library cannot be loaded or lacks a required entry point.
  static std::unique_ptr<Library> open(const std::string& path, std::string* reason);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const Api& api() const { return api_; }

 private:
  explicit Library(void* handle) : handle_(handle) {}
  void* handle_;
  Api api_;
};

}  // namespace gpufl::nvml
