#include "core/thread_state.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <new>

namespace gpufl::core {

constinit thread_local ThreadTls t_thread = {nullptr, 0, ThreadStatus::Fresh};

namespace {

int64_t osTid() noexcept {
  return static_cast<int64_t>(syscall(SYS_gettid));
}

// Its destructor is this thread's exit hook. It is a separate thread_local (with a non-trivial
// destructor) so that the hot-path t_thread stays trivial; it is touched only when the state is
// created.
struct ThreadExitHook {
  bool armed = false;
  ~ThreadExitHook() {
    ThreadTls& t = t_thread;
    ThreadState* s = t.state;
    t.state = nullptr;
    t.current_path = 0;
    t.status = ThreadStatus::Gone;
    if (s == nullptr) return;
    ThreadBufferRegistry::global().retire(s->buffer);
    delete s;
  }
};
thread_local ThreadExitHook exit_hook;

}  // namespace

ThreadState* createThreadState() noexcept {
  ThreadTls& t = t_thread;
  if (t.state != nullptr) return t.state;
  if (t.status == ThreadStatus::Gone) return nullptr;
  exit_hook.armed = true;  // constructs the hook: its destructor now runs at thread exit
  auto* s = new (std::nothrow) ThreadState();
  if (s == nullptr) return nullptr;
  s->buffer = ThreadBufferRegistry::global().create(osTid());
  if (s->buffer == nullptr) {
    delete s;
    return nullptr;
  }
  s->info = s->buffer->info();
  s->id_base = uint64_t{s->info.thread_index} << kScopeCounterBits;
  t.state = s;
  t.status = ThreadStatus::Ready;
  return s;
}

int64_t currentTid() noexcept {
  ThreadState* s = t_thread.state;
  return s != nullptr ? s->info.tid : osTid();
}

bool pushRecord(const Record& r) noexcept {
  ThreadState* s = threadState();
  return s != nullptr && s->buffer->push(r);
}

}  // namespace gpufl::core
