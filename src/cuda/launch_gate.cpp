#include "cuda/launch_gate.hpp"

namespace gpufl::cuda {
namespace {

// What the calling thread holds. One gate per engine and one SASS engine per process, but the
// owner is kept so that two gates (tests) never mistake each other's holds.
struct ThreadHold {
  const LaunchGate* gate = nullptr;
  LaunchGate::Hold hold = LaunchGate::Hold::None;
  uint64_t key = 0;
};
thread_local ThreadHold t_hold;

}  // namespace

void LaunchGate::enter(bool exclusive, uint64_t key) {
  if (t_hold.gate != nullptr) return;  // nested: the outer launch keeps its hold
  if (exclusive) {
    mutex_.lock();
  } else {
    mutex_.lock_shared();
  }
  t_hold = {this, exclusive ? Hold::Exclusive : Hold::Shared, key};
}

void LaunchGate::upgrade() {
  if (t_hold.gate != this || t_hold.hold != Hold::Shared) return;
  mutex_.unlock_shared();
  mutex_.lock();
  t_hold.hold = Hold::Exclusive;
}

void LaunchGate::leave(uint64_t key) {
  if (t_hold.gate != this || t_hold.key != key) return;
  if (t_hold.hold == Hold::Exclusive) {
    mutex_.unlock();
  } else {
    mutex_.unlock_shared();
  }
  t_hold = {};
}

LaunchGate::Hold LaunchGate::held() const {
  return t_hold.gate == this ? t_hold.hold : Hold::None;
}

LaunchGate::Exclusive::Exclusive(LaunchGate& gate) : gate_(nullptr) {
  if (t_hold.gate != nullptr) return;
  gate.mutex_.lock();
  t_hold = {&gate, Hold::Exclusive, 0};
  gate_ = &gate;
}

LaunchGate::Exclusive::~Exclusive() {
  if (gate_ == nullptr) return;
  t_hold = {};
  gate_->mutex_.unlock();
}

}  // namespace gpufl::cuda
