#include "cuda/kernel_catalog.hpp"

#include "core/demangle.hpp"
#include "core/occupancy.hpp"

namespace gpufl::cuda {

void KernelCatalog::setDevices(const std::vector<DeviceInfo>& devices) {
  devices_.clear();
  for (const auto& d : devices) devices_.emplace_back(d, limitsFromDevice(d));
}

std::string KernelCatalog::keyOf(const KernelDef& s, int carveout_percent) const {
  std::string key = s.name;
  key += '\0';
  for (int64_t v : {int64_t{s.device}, int64_t{s.context}, int64_t{s.grid.x}, int64_t{s.grid.y},
                    int64_t{s.grid.z}, int64_t{s.block.x}, int64_t{s.block.y}, int64_t{s.block.z},
                    int64_t{s.num_regs}, s.static_shared_bytes, s.dyn_shared_bytes, s.local_bytes,
                    int64_t{carveout_percent}}) {
    key.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  return key;
}

uint32_t KernelCatalog::intern(const KernelDef& shape, int carveout_percent, bool* created,
                               KernelDef* def) {
  std::string key = keyOf(shape, carveout_percent);
  if (auto it = ids_.find(key); it != ids_.end()) {
    *created = false;
    return it->second;
  }
  uint32_t id = next_id_++;
  ids_.emplace(std::move(key), id);
  *created = true;
  *def = shape;
  def->id = id;
  def->demangled = demangle(shape.name);
  if (carveout_percent >= 0) def->carveout_pct = carveout_percent;
  for (const auto& [device, limits] : devices_) {
    if (!occupancy_enabled_) break;
    if (device.id != shape.device) continue;
    int threads = static_cast<int>(shape.block.count());
    def->occupancy = computeOccupancy(limits, threads, shape.num_regs, shape.static_shared_bytes,
                                      shape.dyn_shared_bytes, carveout_percent);
    int per_sm = def->occupancy->max_active_blocks;
    if (per_sm > 0 && device.sm_count > 0)
      def->waves =
          static_cast<double>(shape.grid.count()) / (static_cast<double>(per_sm) * device.sm_count);
    break;
  }
  return id;
}

}  // namespace gpufl::cuda
