#include "cuda/launch_gate.hpp"

namespace gpufl::cuda {
namespace {

// What the calling thread holds. One gate per tracer, but the owner is kept so that two gates
// (tests) never mistake each other's holds.
struct ThreadHold {
  const LaunchGate* gate = nullptr;
  LaunchGate::Hold hold = LaunchGate::Hold::None;
  uint64_t key = 0;
};
thread_local ThreadHold t_hold;

}  // namespace

bool LaunchGate::take(bool exclusive) {
  if (givenUp()) return false;
  const bool got =
      exclusive ? mutex_.try_lock_for(patience_) : mutex_.try_lock_shared_for(patience_);
  if (!got) giveUp();
  return got;
}

void LaunchGate::giveUp() {
  if (given_up_.exchange(true)) return;
  if (on_give_up_)
    on_give_up_("a launch of another thread held the launch gate for " +
                std::to_string(patience_.count()) +
                " ms: launches are no longer kept apart while instrumenting (a hang inside CUPTI "
                "becomes possible again with several launching threads)");
}

void LaunchGate::enter(bool exclusive, uint64_t key) {
  if (t_hold.gate != nullptr) return;  // nested: the outer launch keeps its hold
  if (!take(exclusive)) return;
  t_hold = {this, exclusive ? Hold::Exclusive : Hold::Shared, key};
}

void LaunchGate::upgrade() {
  if (t_hold.gate != this || t_hold.hold != Hold::Shared) return;
  mutex_.unlock_shared();
  if (take(true)) {
    t_hold.hold = Hold::Exclusive;
  } else {
    t_hold = {};
  }
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
  if (t_hold.gate != nullptr || !gate.take(true)) return;
  t_hold = {&gate, Hold::Exclusive, 0};
  gate_ = &gate;
}

LaunchGate::Exclusive::~Exclusive() {
  if (gate_ == nullptr) return;
  t_hold = {};
  gate_->mutex_.unlock();
}

}  // namespace gpufl::cuda
