#include "cuda/kernel_activity_switch.hpp"

#include <cstdio>

namespace gpufl::cuda {

KernelActivitySwitch::KernelActivitySwitch(Ops ops, int64_t quiet_ns)
    : ops_(std::move(ops)), quiet_ns_(quiet_ns) {}

bool KernelActivitySwitch::start(bool always_serialized, std::string* why) {
  std::lock_guard lock(mu_);
  const CUpti_ActivityKind kind =
      always_serialized ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (CUptiResult r = ops_.enable(kind); r != CUPTI_SUCCESS) {
    if (why)
      *why = std::string("cuptiActivityEnable(") +
             (always_serialized ? "KERNEL" : "CONCURRENT_KERNEL") + ") failed: CUPTI error " +
             std::to_string(static_cast<int>(r));
    return false;
  }
  mode_.store(always_serialized ? Mode::SerializedForGood : Mode::Concurrent,
              std::memory_order_release);
  started_ = true;
  return true;
}

void KernelActivitySwitch::stop() {
  std::lock_guard lock(mu_);
  if (!started_) return;
  ops_.disable(kind());
  started_ = false;
}

CUpti_ActivityKind KernelActivitySwitch::kind() const {
  return mode() == Mode::Concurrent ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
                                    : CUPTI_ACTIVITY_KIND_KERNEL;
}

bool KernelActivitySwitch::swap(CUpti_ActivityKind from, CUpti_ActivityKind to) {
  ops_.disable(from);
  if (ops_.enable(to) == CUPTI_SUCCESS) return true;
  ++stats_.failed_swaps;
  ops_.enable(from);  // kernels keep being recorded as they were
  return false;
}

bool KernelActivitySwitch::serialize(int64_t now_ns) {
  last_use_ns_.store(now_ns, std::memory_order_relaxed);
  std::lock_guard lock(mu_);
  if (!started_) return false;
  if (mode() != Mode::Concurrent) return true;
  if (!swap(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL)) return false;
  mode_.store(Mode::Serialized, std::memory_order_release);
  window_begin_ns_ = now_ns;
  ++stats_.windows;
  return true;
}

bool KernelActivitySwitch::relaxDue(int64_t now_ns) const {
  return mode_.load(std::memory_order_acquire) == Mode::Serialized &&
         now_ns - last_use_ns_.load(std::memory_order_relaxed) >= quiet_ns_;
}

bool KernelActivitySwitch::relax(int64_t now_ns) {
  std::lock_guard lock(mu_);
  if (!started_ || !relaxDue(now_ns)) return false;
  if (!swap(CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
    mode_.store(Mode::SerializedForGood, std::memory_order_release);  // no second try per launch
    return false;
  }
  stats_.serialized_ns += now_ns - window_begin_ns_;
  mode_.store(Mode::Concurrent, std::memory_order_release);
  return true;
}

KernelActivitySwitch::Stats KernelActivitySwitch::stats(int64_t now_ns) const {
  std::lock_guard lock(mu_);
  Stats s = stats_;
  if (mode() == Mode::Serialized || (mode() == Mode::SerializedForGood && s.windows > 0))
    s.serialized_ns += now_ns - window_begin_ns_;
  return s;
}

std::string KernelActivitySwitch::summary(int64_t now_ns, int64_t traced_ns) const {
  const Stats s = stats(now_ns);
  if (s.windows == 0) return "";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "kernels traced serialized in %llu window%s while SASS instrumentation ran, "
                "%.1f s of %.1f s traced; concurrently (with graph kernels' times) the rest",
                static_cast<unsigned long long>(s.windows), s.windows == 1 ? "" : "s",
                static_cast<double>(s.serialized_ns) / 1e9, static_cast<double>(traced_ns) / 1e9);
  std::string out = buf;
  if (s.failed_swaps > 0)
    out += "; CUPTI refused " + std::to_string(s.failed_swaps) +
           " swap(s) of the kernel activity kind" +
           (mode() == Mode::SerializedForGood ? ", so kernels stayed serialized from then on" : "");
  return out;
}

}  // namespace gpufl::cuda
