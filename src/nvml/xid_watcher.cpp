#include "nvml/xid_watcher.hpp"

#include <chrono>

namespace gpufl::nvml {

const char* xidMeaning(unsigned long long xid) {
  // From NVIDIA's Xid catalog: the ones a CUDA program's own work can cause or suffer.
  switch (xid) {
    case 13:
      return "graphics engine exception (a kernel's illegal instruction or address)";
    case 31:
      return "GPU memory page fault (a kernel touched an address it may not)";
    case 43:
      return "GPU stopped processing (a kernel faulted; the context is gone)";
    case 45:
      return "preemptive cleanup after an earlier error";
    case 48:
      return "double-bit ECC error";
    case 63:
    case 64:
      return "ECC page retirement or row remapping";
    case 74:
      return "NVLink error";
    case 79:
      return "GPU has fallen off the bus";
    case 92:
      return "high single-bit ECC error rate";
    case 94:
      return "contained ECC error";
    case 95:
      return "uncontained ECC error";
    case 109:
      return "context switch timeout";
    case 119:
    case 120:
      return "GSP firmware error";
    default:
      return "";
  }
}

bool XidWatcher::start(const Api& api, const std::vector<Device>& devices, OnXid on_xid,
                       std::string* why) {
  if (running()) return true;
  if (!api.eventSetCreate || !api.deviceRegisterEvents || !api.eventSetWait || !api.eventSetFree) {
    if (why) *why = "this NVML has no event API (nvmlEventSetWait_v2)";
    return false;
  }
  if (Return r = api.eventSetCreate(&set_); r != kSuccess) {
    if (why) *why = "nvmlEventSetCreate: " + errorText(api, r);
    return false;
  }
  std::string failures;
  for (uint32_t i = 0; i < devices.size(); ++i) {
    if (Return r = api.deviceRegisterEvents(devices[i], kEventTypeXidCriticalError, set_);
        r != kSuccess) {
      failures = "nvmlDeviceRegisterEvents: " + errorText(api, r);
      continue;
    }
    devices_.emplace_back(devices[i], i);
  }
  if (devices_.empty()) {
    api.eventSetFree(set_);
    set_ = nullptr;
    if (why) *why = failures.empty() ? "no GPU to watch" : failures;
    return false;
  }
  api_ = &api;
  on_xid_ = std::move(on_xid);
  stop_ = false;
  thread_ = std::thread([this] { run(); });
  return true;
}

void XidWatcher::run() {
  while (!stop_.load(std::memory_order_relaxed)) {
    EventData data{};
    const Return r = api_->eventSetWait(set_, &data, kWaitMs);
    if (r == kErrorTimeout) continue;
    if (r != kSuccess) {
      // A failing wait would spin: wait out the period instead, and keep trying (a GPU lost
      // returns errors until the program ends, which the samplers report).
      for (unsigned i = 0; i < kWaitMs / 50 && !stop_.load(std::memory_order_relaxed); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    if ((data.eventType & kEventTypeXidCriticalError) == 0 || !on_xid_) continue;
    uint32_t gpu = 0;
    for (const auto& [device, index] : devices_)
      if (device == data.device) gpu = index;
    on_xid_(gpu, data.eventData);
  }
}

void XidWatcher::stop() {
  if (!thread_.joinable()) return;
  stop_ = true;
  thread_.join();
  api_->eventSetFree(set_);
  set_ = nullptr;
  devices_.clear();
}

}  // namespace gpufl::nvml
