// Hangs: a kernel waiting for a flag in host-mapped memory that the host never sets, and two host
// threads deadlocked through the GPU. The kernels give up by themselves (default after 20 s; the
// case's argument changes it) so that the run ends; the programs then finish normally.
#include <thread>

#include "incidents.hpp"

namespace {

using incidents::fact;
using incidents::Range;

// Spins until *flag != 0 or `timeout_ns` have passed on the GPU's global timer (wall-clock
// nanoseconds, unlike clock64, whose rate follows the SM clock); *gave_up says which.
__global__ void spin_on_flag(const volatile int* flag, int* gave_up, long long timeout_ns) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    if (*flag != 0) {
      *gave_up = 0;
      return;
    }
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < timeout_ns);
  *gave_up = 1;
}

long long timeoutNs(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20.0;
  return static_cast<long long>(seconds * 1e9);
}

// Host-mapped ints, zeroed; `device` is the GPU's pointer to the same memory.
struct Mapped {
  int* host = nullptr;
  int* device = nullptr;
  explicit Mapped(int n) {
    INCIDENT_CHECK(cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; ++i) host[i] = 0;
    INCIDENT_CHECK(cudaHostGetDevicePointer(&device, host, 0));
  }
  ~Mapped() { cudaFreeHost(host); }
};

// The host thread waits in cudaStreamSynchronize for a kernel that waits for the host: the
// watchdog must name the kernel and the thread.
int spin(int argc, char** argv) {
  const long long timeout_ns = timeoutNs(argc, argv);
  Mapped m(2);  // [0] the flag nobody sets, [1] gave_up
  cudaStream_t s;
  INCIDENT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  fact("TID main", incidents::threadId());
  fact("HANDLE s", incidents::handle(s));
  {
    Range r("wait_step");
    spin_on_flag<<<1, 1, 0, s>>>(m.device, m.device + 1, timeout_ns);
  }
  INCIDENT_CHECK(cudaGetLastError());
  INCIDENT_CHECK(cudaStreamSynchronize(s));
  fact("RESULT spin_gave_up", __atomic_load_n(&m.host[1], __ATOMIC_SEQ_CST));
  INCIDENT_CHECK(cudaStreamDestroy(s));
  return 0;
}

// Threads a and b each launch spin_on_flag on their own stream, waiting for a flag the other thread
// sets only after its own cudaStreamSynchronize returns: neither returns until the kernels give up.
int deadlock(int argc, char** argv) {
  const long long timeout_ns = timeoutNs(argc, argv);
  Mapped m(4);  // [0] a's flag (b sets it), [1] b's flag (a sets it), [2] a gave up, [3] b gave up
  auto peer = [&](int me) {
    const char* name = me == 0 ? "a" : "b";
    cudaStream_t s;
    INCIDENT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    fact((std::string("TID ") + name).c_str(), incidents::threadId());
    fact((std::string("HANDLE ") + name).c_str(), incidents::handle(s));
    {
      Range r(me == 0 ? "peer_a" : "peer_b");
      spin_on_flag<<<1, 1, 0, s>>>(m.device + me, m.device + 2 + me, timeout_ns);
    }
    INCIDENT_CHECK(cudaGetLastError());
    INCIDENT_CHECK(cudaStreamSynchronize(s));
    __atomic_store_n(&m.host[1 - me], 1, __ATOMIC_SEQ_CST);  // too late: the peer's kernel gave up
    INCIDENT_CHECK(cudaStreamDestroy(s));
  };
  std::thread a(peer, 0), b(peer, 1);
  a.join();
  b.join();
  // The kernel that started first gives up first; the other may then see its flag set. Which one
  // that is varies, that at least one gave up does not.
  const int gave_up =
      __atomic_load_n(&m.host[2], __ATOMIC_SEQ_CST) + __atomic_load_n(&m.host[3], __ATOMIC_SEQ_CST);
  fact("RESULT deadlock_broken_by_timeout", gave_up > 0 ? 1 : 0);
  return 0;
}

incidents::Register r_spin("spin", spin);
incidents::Register r_deadlock("deadlock", deadlock);

}  // namespace
