// The writer thread's half of CuptiTracer: completed CUPTI buffers decoded into events, joined
// with what the launch callbacks recorded, and what an incident needs from the records (the last
// kernels of each stream, CUPTI's stream ids). The callbacks' half is cupti_tracer.cpp.
#include <cupti.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "cuda/activity_decode.hpp"
#include "cuda/cupti_api.hpp"
#include "cuda/cupti_loader.hpp"
#include "cuda/cupti_tracer.hpp"

namespace gpufl::cuda {
namespace {
constexpr int64_t kClockSamplePeriodNs = 1'000'000'000;
}  // namespace

void CuptiTracer::drain(EventVisitor& out, const std::string& sid) {
  for (auto& [id, frames] : stacks_.takeNew()) {
    StackDef stack;
    stack.sid = sid;
    stack.id = id;
    stack.frames = std::move(frames);
    out.onStack(stack);
  }
  // Offset mode needs the offset at every drain; otherwise once a second watches CUPTI's clock.
  if (offset_clock_ || core::monotonicNs() - last_clock_sample_ns_ >= kClockSamplePeriodNs)
    sampleClockOffset();
  bool arrived = false;
  for (const CompletedBuffer& buffer : pool_.takeCompleted()) {
    decodeBuffer(buffer, out, sid);
    pool_.release(buffer.data);
    arrived = true;
  }
  if (arrived) flight_->noteArrival(core::monotonicNs());
  if (engines_.empty()) return;
  EngineTime::Span span(engine_time_, EngineHook::Drain);
  for (auto& engine : engines_) engine->drain(out);
}

bool CuptiTracer::isToolKernel(const DecodedKernel& kernel) {
  for (auto& engine : engines_) {
    if (!engine->ownsKernel(kernel.shape.name)) continue;
    ++tool_kernels_;
    tool_kernel_ns_ += static_cast<uint64_t>(kernel.event.end_ns - kernel.event.start_ns);
    return true;
  }
  return false;
}

void CuptiTracer::sampleClockOffset() {
  if (cuptiLibrary().cuptiGetTimestamp == nullptr) return;
  uint64_t cupti_ns = 0;
  const int64_t before = core::monotonicNs();
  if (cupti::cuptiGetTimestamp(&cupti_ns) != CUPTI_SUCCESS) return;
  const int64_t after = core::monotonicNs();
  last_clock_sample_ns_ = after;
  clock_offset_ns_ = checks_.clockSample(before, after, static_cast<int64_t>(cupti_ns));
}

// [writer thread] The checks of one decoded record (trace_checks.hpp), with what the launch
// callback recorded; false when its times are unusable (left out of the log).
bool CuptiTracer::checked(bool is_copy, uint64_t correlation_id, int64_t start_ns, int64_t end_ns,
                          uint64_t bytes, int64_t launch_ns, uint32_t tid, int64_t now_ns) {
  core::CheckedRecord r;
  r.is_copy = is_copy;
  r.correlation_id = correlation_id;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.bytes = bytes;
  r.launch_ns = launch_ns;
  r.tid = tid;
  return checks_.check(r, now_ns);
}

void CuptiTracer::decodeBuffer(const CompletedBuffer& buffer, EventVisitor& out,
                               const std::string& sid) {
  CUpti_Activity* record = nullptr;
  const int64_t now = core::monotonicNs();  // every record here ended before its buffer completed
  while (cupti::cuptiActivityGetNextRecord(buffer.data, buffer.valid_bytes, &record) ==
         CUPTI_SUCCESS) {
    DecodedActivity decoded = decodeActivity(*record);
    if (auto* kernel = std::get_if<DecodedKernel>(&decoded)) {
      const bool timed = kernel->event.start_ns != 0 && kernel->event.end_ns != 0;
      kernel->event.start_ns += clock_offset_ns_;
      kernel->event.end_ns += clock_offset_ns_;
      core::LaunchInfo info;
      int64_t launch_ns = 0;
      uint32_t tid = 0;
      const auto corr = static_cast<uint32_t>(kernel->event.correlation_id);
      const bool attributed = launches().get(corr, &info, &launch_ns, &tid);
      // A record without times does not say the kernel finished: CUPTI hands a kernel still
      // running at a forced flush over so (H100: a spinning kernel's record came 1 s after its
      // launch, and none when it ended). It stays in flight until a synchronize proves it done.
      if (kernel->has_timestamps) launches().complete(corr);
      // Attributed or not: a tool kernel launched inside the program's launch callback (the range
      // profiler's WaitNs around a launch outside scopes) carries that launch's correlation id.
      if (isToolKernel(*kernel)) continue;
      const bool usable = checked(false, corr, timed ? kernel->event.start_ns : 0,
                                  timed ? kernel->event.end_ns : 0, 0, launch_ns, tid, now);
      if (!kernel->has_timestamps) {  // start = end = 0: a time of 0 would break every duration
        ++untimed_kernels_;
        continue;
      }
      if (!usable) {  // one time missing, or ending before it starts
        ++invalid_times_;
        continue;
      }
      bool created = false;
      KernelDef def;
      // A carveout the record does not carry may still have been asked for (the function's
      // attribute, seen at its launch).
      const int carveout =
          kernel->carveout_percent >= 0 ? kernel->carveout_percent : carveouts_.forLaunch(corr);
      kernel->event.def_id = catalog_.intern(kernel->shape, carveout, &created, &def);
      if (created) {
        def.sid = sid;
        out.onKernelDef(def);
      }
      if (attributed) {
        kernel->event.scope_path = info.scope_path;
        kernel->event.stack_id = info.stack_id;
      } else {
        ++unattributed_;
      }
      for (auto& engine : engines_)
        kernel->event.instrumented |= engine->wasInstrumented(kernel->event.correlation_id);
      kernel->event.sid = sid;
      out.onKernel(kernel->event);
      rememberLastKernel(kernel->event);
      ++kernels_;
    } else if (auto* sync = std::get_if<SyncEvent>(&decoded)) {
      sync->start_ns += clock_offset_ns_;
      sync->end_ns += clock_offset_ns_;
      core::LaunchInfo info;
      if (launches().get(static_cast<uint32_t>(sync->correlation_id), &info))
        sync->scope_path = info.scope_path;
      sync->sid = sid;
      out.onSync(*sync);
    } else if (auto* memory = std::get_if<MemoryEvent>(&decoded)) {
      memory->ts_ns += clock_offset_ns_;
      core::LaunchInfo info;
      if (launches().get(static_cast<uint32_t>(memory->correlation_id), &info))
        memory->scope_path = info.scope_path;
      memory->sid = sid;
      out.onMemory(*memory);
    } else if (auto* copy = std::get_if<MemcpyEvent>(&decoded)) {
      const bool timed = copy->start_ns != 0 && copy->end_ns != 0;
      copy->start_ns += clock_offset_ns_;
      copy->end_ns += clock_offset_ns_;
      core::LaunchInfo info;
      int64_t launch_ns = 0;
      uint32_t tid = 0;
      const auto corr = static_cast<uint32_t>(copy->correlation_id);
      if (launches().get(corr, &info, &launch_ns, &tid)) copy->scope_path = info.scope_path;
      launches().complete(corr);
      if (!checked(true, corr, timed ? copy->start_ns : 0, timed ? copy->end_ns : 0, copy->bytes,
                   launch_ns, tid, now)) {
        ++invalid_times_;  // no times, or ending before it starts
        continue;
      }
      copy->sid = sid;
      out.onMemcpy(*copy);
      ++(copy->is_memset ? memsets_ : memcpys_);
    }
  }
}

void CuptiTracer::rememberLastKernel(const KernelEvent& kernel) {
  constexpr size_t kPerStream = 2, kStreams = 64;
  auto it = last_kernels_.find(kernel.stream);
  if (it == last_kernels_.end()) {
    if (last_kernels_.size() >= kStreams) {  // forget the stream that finished work longest ago
      auto stalest = std::min_element(last_kernels_.begin(), last_kernels_.end(),
                                      [](const auto& a, const auto& b) {
                                        return a.second.back().end_ns < b.second.back().end_ns;
                                      });
      last_kernels_.erase(stalest);
    }
    it = last_kernels_.emplace(kernel.stream, std::vector<LastKernel>{}).first;
  }
  std::vector<LastKernel>& tail = it->second;
  if (tail.size() == kPerStream) tail.erase(tail.begin());
  tail.push_back({kernel.stream, kernel.def_id, kernel.correlation_id, kernel.end_ns});
}

void CuptiTracer::enrichIncident(Incident& incident) {
  // CUPTI names streams by its own ids (kernel_event.stream); the launch callback saw handles.
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> ids;
  for (InFlightLaunch& launch : incident.in_flight) {
    if (launch.context == 0) continue;
    auto [it, fresh] = ids.try_emplace({launch.context, launch.stream_handle}, 0);
    if (fresh) {
      uint32_t id = 0;
      if (cupti::cuptiGetStreamIdEx(reinterpret_cast<CUcontext>(launch.context),
                                    reinterpret_cast<CUstream>(launch.stream_handle), 0,
                                    &id) == CUPTI_SUCCESS)
        it->second = id;
    }
    launch.stream = it->second;
  }
  for (const auto& [stream, tail] : last_kernels_)
    for (const LastKernel& k : tail)
      if (k.end_ns <= incident.ts_ns) incident.last_kernels.push_back(k);
  std::sort(incident.last_kernels.begin(), incident.last_kernels.end(),
            [](const LastKernel& a, const LastKernel& b) { return a.end_ns < b.end_ns; });
}

}  // namespace gpufl::cuda
