#pragma once

#include <string>

namespace gpufl::cuda {

// A claim on one GPU for a feature the hardware gives to one process at a time, shared by every
// gpufl process on the host through an flock'ed file: /tmp/gpufl-<feature>-<gpu id>.lock.
//
// PC sampling is such a feature. When a second process asked CUPTI for it on the same GPU
// (children of `gpufl trace`, ranks sharing a GPU), CUPTI answered CUPTI_ERROR_HARDWARE_BUSY and
// those processes then crashed in cuptiActivityDisable at exit or lost their kernel records (H200,
// 2026-12-02). A claim lets the second process see the first and leave the feature alone instead.
// The claim ends with the process, however it ends (the kernel drops flock locks).
class GpuClaim {
 public:
  GpuClaim() = default;
  ~GpuClaim();
  GpuClaim(const GpuClaim&) = delete;
  GpuClaim& operator=(const GpuClaim&) = delete;

  // Claims `feature` on `gpu_id` (a PCI bus id or UUID; characters other than [A-Za-z0-9.-] are
  // replaced). False when another process holds it: `why` names it ("pid 1234 holds ...").
  // `dir` is where the lock files live (tests pass their own).
  bool claim(const std::string& feature, const std::string& gpu_id, std::string* why,
             const std::string& dir = "/tmp");
  bool held() const { return fd_ >= 0; }
  void release();

 private:
  int fd_ = -1;
};

}  // namespace gpufl::cuda
