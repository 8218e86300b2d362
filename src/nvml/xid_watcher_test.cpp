#include "nvml/xid_watcher.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace gpufl::nvml {
namespace {

// A fake NVML event API: GPU 1 refuses registration; events queued by the test come out of the
// wait, which otherwise times out after a short sleep.
struct FakeEvents {
  static inline std::mutex mu;
  static inline std::deque<EventData> queued;
  static inline int sets_freed = 0;
  static inline EventSet kSet = reinterpret_cast<EventSet>(0x5e7);

  static Return create(EventSet* set) {
    *set = kSet;
    return kSuccess;
  }
  static Return registerEvents(Device d, unsigned long long types, EventSet) {
    if (types != kEventTypeXidCriticalError) return kErrorInvalidArgument;
    return d == gpu(1) ? kErrorNotSupported : kSuccess;
  }
  static Return wait(EventSet, EventData* out, unsigned int) {
    {
      std::lock_guard lock(mu);
      if (!queued.empty()) {
        *out = queued.front();
        queued.pop_front();
        return kSuccess;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return kErrorTimeout;
  }
  static Return freeSet(EventSet) {
    ++sets_freed;
    return kSuccess;
  }
  static Device gpu(uintptr_t i) { return reinterpret_cast<Device>(0x100 + i); }
  static Api api() {
    Api a;
    a.eventSetCreate = create;
    a.deviceRegisterEvents = registerEvents;
    a.eventSetWait = wait;
    a.eventSetFree = freeSet;
    return a;
  }
};

TEST(XidWatcher, EachXidReachesTheCallbackWithItsGpu) {
  const Api api = FakeEvents::api();
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<uint32_t, unsigned long long>> seen;
  XidWatcher w;
  std::string why;
  ASSERT_TRUE(w.start(
      api, {FakeEvents::gpu(0), FakeEvents::gpu(1), FakeEvents::gpu(2)},
      [&](uint32_t gpu, unsigned long long xid) {
        std::lock_guard lock(mu);
        seen.emplace_back(gpu, xid);
        cv.notify_all();
      },
      &why))
      << why;
  {
    std::lock_guard lock(FakeEvents::mu);
    FakeEvents::queued.push_back({FakeEvents::gpu(2), kEventTypeXidCriticalError, 31, 0, 0});
    FakeEvents::queued.push_back({FakeEvents::gpu(0), kEventTypeXidCriticalError, 43, 0, 0});
  }
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return seen.size() == 2; }));
  lock.unlock();
  // GPU 2 keeps its NVML index although GPU 1 could not register.
  EXPECT_EQ(seen[0], (std::pair<uint32_t, unsigned long long>{2, 31}));
  EXPECT_EQ(seen[1], (std::pair<uint32_t, unsigned long long>{0, 43}));
  const int freed = FakeEvents::sets_freed;
  w.stop();
  EXPECT_FALSE(w.running());
  EXPECT_EQ(FakeEvents::sets_freed, freed + 1);
}

TEST(XidWatcher, WithoutTheEventApiOrAnyGpuItSaysWhyAndRunsNothing) {
  Api none;
  XidWatcher w;
  std::string why;
  EXPECT_FALSE(w.start(none, {FakeEvents::gpu(0)}, nullptr, &why));
  EXPECT_NE(why.find("event API"), std::string::npos) << why;
  const Api api = FakeEvents::api();
  EXPECT_FALSE(w.start(api, {FakeEvents::gpu(1)}, nullptr, &why));
  EXPECT_NE(why.find("nvmlDeviceRegisterEvents"), std::string::npos) << why;
  EXPECT_FALSE(w.running());
}

TEST(XidWatcher, KnownXidsHaveAMeaning) {
  EXPECT_NE(std::string(xidMeaning(31)).find("page fault"), std::string::npos);
  EXPECT_NE(std::string(xidMeaning(79)).find("fallen off the bus"), std::string::npos);
  EXPECT_STREQ(xidMeaning(12345), "");
}

}  // namespace
}  // namespace gpufl::nvml
