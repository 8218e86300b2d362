// Launch shapes -> kernel_def ids, on the writer thread.
//
// A kernel has a speed only at a size, so a kernel_def is one function on one device at one launch
// shape (grid, block, registers, shared memory, carveout). The first time a shape is seen its
// KernelDef is completed (demangled name, occupancy from the device's real limits, waves) and must
// be written before the event.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/arch_limits.hpp"
#include "core/events.hpp"

namespace gpufl::cuda {

class KernelCatalog {
 public:
  // Devices of the session, indexed by DeviceInfo::id; kernels on unknown devices get no occupancy.
  void setDevices(const std::vector<DeviceInfo>& devices);
  // enable_kernel_details = false: launch shapes keep grid, block, registers and shared memory,
  // without the occupancy breakdown and waves.
  void setOccupancyEnabled(bool on) { occupancy_enabled_ = on; }

  // [writer thread] Looks up `shape` (every KernelDef field but id, demangled, occupancy and waves)
  // with the carveout the launch requested (-1 = none). Returns the id; *created is set and *def
  // completed when new.
  uint32_t intern(const KernelDef& shape, int carveout_percent, bool* created, KernelDef* def);

  size_t size() const { return ids_.size(); }

 private:
  std::string keyOf(const KernelDef& shape, int carveout_percent) const;

  std::vector<std::pair<DeviceInfo, ArchLimits>> devices_;
  std::unordered_map<std::string, uint32_t> ids_;
  uint32_t next_id_ = 1;
  bool occupancy_enabled_ = true;
};

}  // namespace gpufl::cuda
