// The NVIDIA driver's Xid errors, as NVML reports them while they happen (nvmlEventSetWait_v2 on a
// thread of its own): a GPU memory page fault (31), a GPU that stopped processing (43), an
// uncorrectable ECC error (48, 94, 95), a GPU fallen off the bus (79). The flight recorder turns
// each into an incident: what the driver saw, next to what gpufl saw in flight.
//
// Where NVML cannot register Xid events (an old driver, a vGPU, a container without the
// permission), start() fails with the reason and nothing runs. The thread waits in NVML at most
// kWaitMs at a time, so stop() returns within that.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nvml/nvml_api.hpp"

namespace gpufl::nvml {

// What an Xid means, in a few words ("GPU memory page fault"); "" for one not in the table.
const char* xidMeaning(unsigned long long xid);

class XidWatcher {
 public:
  static constexpr unsigned int kWaitMs = 500;
  // [watcher thread] An Xid on the GPU of NVML index `gpu`.
  using OnXid = std::function<void(uint32_t gpu, unsigned long long xid)>;

  XidWatcher() = default;
  ~XidWatcher() { stop(); }
  XidWatcher(const XidWatcher&) = delete;
  XidWatcher& operator=(const XidWatcher&) = delete;

  // Registers Xid events on every GPU in `devices` (NVML indexes in order) and starts the thread.
  // False with `why` when no GPU could register (`api` must outlive the watcher).
  bool start(const Api& api, const std::vector<Device>& devices, OnXid on_xid, std::string* why);
  void stop();
  bool running() const { return thread_.joinable(); }

 private:
  void run();

  const Api* api_ = nullptr;
  EventSet set_ = nullptr;
  std::vector<std::pair<Device, uint32_t>> devices_;  // registered, with their NVML index
  OnXid on_xid_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gpufl::nvml
