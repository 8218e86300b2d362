// PC sampling: warp stall reasons per instruction, from CUPTI's PC Sampling API in continuous mode.
//
// What CUPTI allows (cupti_pcsampling.h, and measured on the H200, CUDA 13.0, driver 580.159.04):
//   - cuptiPCSamplingEnable per context (75-110 ms), then attributes: period 2^5..2^31 cycles
//     (CUPTI picks 11 when unset), scratch buffer (default 1 MB), hardware buffer (default 512 MB:
//     set explicitly), collection mode, output format, and the "sampling data buffer" CUPTI decodes
//     into. The buffer given to cuptiPCSamplingGetData must be a different one: sharing it returned
//     no samples.
//   - CUPTI's worker threads decode the hardware buffer every WORKER_THREAD_PERIODIC_SLEEP_SPAN
//     (default 100 ms): GetData right after a kernel returns nothing; GetData from the writer
//     thread every drain returns what was decoded since. At stop the engine waits for the context,
//     sleeps two spans, collects, then disables (Disable took 40-60 ms).
//   - It can run on the same launches as SASS metrics (both gave data on one launch, kernels traced
//     with CUPTI_ACTIVITY_KIND_KERNEL), but samples of SASS-patched code are biased: rowK's
//     long_scoreboard share fell from 90% to 40% and "wait" rose from 5% to 45%. So with SASS
//     metrics the engine runs in alternate mode (start/stop control): sampling pauses for the
//     launches SASS alone instruments; each kernel's first launch has both (LaunchScheduler), and
//     its samples, collected apart, count only for kernels that have no clean samples (a kernel
//     launched once: the seed's coalescing demo).
// Kernel durations measured by CUPTI activity while sampling (period 2^12) were within 1% of
// untraced runs on the H200, so sampled launches are not reported as instrumented.
#pragma once

#include <cupti.h>
#include <cupti_pcsampling.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cubin_sass.hpp"
#include "cuda/deep_engine.hpp"
#include "cuda/deep_support.hpp"
#include "cuda/gpu_claim.hpp"
#include "cuda/stall_reasons.hpp"

namespace gpufl::cuda {

struct PcSamplingOptions {
  uint32_t period = 12;                      // log2 of cycles between samples, per SM
  size_t hardware_buffer_bytes = 64u << 20;  // device memory CUPTI samples into
  size_t scratch_buffer_bytes = 8u
                                << 20;  // host memory CUPTI decodes into (~16 B per PC and reason)
  size_t pcs_per_read = 4096;           // PC records per cuptiPCSamplingGetData call
  uint32_t worker_sleep_ms = 50;        // CUPTI's decode period
  int64_t emit_interval_ns = 1'000'000'000;  // pc_sample records are written at most this often

  // Deep preset (default) or the light one for always-on sampling (period 16: 16x fewer samples).
  // GPUFL_PC_SAMPLING_PERIOD, GPUFL_PC_SAMPLING_HW_BUFFER_MB, GPUFL_PC_SAMPLING_SCRATCH_MB
  // override.
  static PcSamplingOptions fromEnv(bool light = false);
};

// Sample counts per (function, PC, stall reason). Plain data for CPU tests.
class PcSampleAggregator {
 public:
  struct Row {
    uint64_t crc = 0;
    std::string function;
    uint64_t pc = 0;
    std::string stall;
    uint64_t count = 0;
  };
  void add(uint64_t crc, const std::string& function, uint64_t pc, const std::string& stall,
           uint64_t n);
  // Removes and returns every row (records with the same key written at different times add up).
  std::vector<Row> take();
  size_t rows() const { return rows_.size(); }

 private:
  std::map<std::tuple<std::string, uint64_t, uint64_t, std::string>, uint64_t> rows_;
};

// Samples of launches that SASS metrics patched too, kept apart from the clean ones: at the end
// they are kept for the functions that have no clean samples and left out (counted) for the others.
class PatchedSamples {
 public:
  void add(uint64_t crc, const std::string& function, uint64_t pc, const std::string& stall,
           uint64_t n) {
    patched_.add(crc, function, pc, stall, n);
  }
  // A clean sample of `function` was collected.
  void sawClean(const std::string& function) { clean_.insert(function); }
  struct Result {
    std::vector<PcSampleAggregator::Row> kept;  // of functions without clean samples
    std::vector<std::string> kept_functions;
    uint64_t left_out_samples = 0;
    size_t left_out_functions = 0;
  };
  Result take();

 private:
  PcSampleAggregator patched_;
  std::set<std::string> clean_;
};

class PcSamplingEngine final : public DeepEngine {
 public:
  PcSamplingEngine(std::shared_ptr<LaunchScheduler> scheduler, std::shared_ptr<CubinStore> cubins,
                   PcSamplingOptions options);
  ~PcSamplingEngine() override;

  const char* name() const override { return "pc_sampling"; }
  bool start(const EngineContext& ctx) override;
  void onContextCreated(CUcontext context, uint32_t device) override;
  void onContextDestroying(CUcontext context) override;
  void onModuleLoaded(CUcontext context, const void* cubin, size_t bytes) override;
  // Alone (launch_gate.hpp) when this launch would start, stop or restart sampling: those calls
  // deadlocked against other threads' launches on the H200.
  bool launchMustRunAlone(const LaunchSite& launch) override;
  void onLaunchEnter(const LaunchSite& launch) override;
  void drain(EventVisitor& out) override;
  void stop() override;
  std::string workDetails() const override { return cubins_ ? cubins_->workSummary() : ""; }

 private:
  // Host buffers in CUPTI's layout: PC records, each pointing at its own stall-reason array.
  struct Buffer {
    CUpti_PCSamplingData data{};
    std::vector<CUpti_PCSamplingPCData> pcs;
    std::vector<CUpti_PCSamplingStallReason> reasons;
    void init(size_t pcs_count, size_t reason_count);
    void rearm(size_t reason_count);  // before each GetData: counts are in/out
  };
  struct Context {
    CUcontext handle = nullptr;
    bool enabled = false;
    bool sampling = false;  // started (always, unless alternate mode)
    bool patched = false;   // the samples being taken are of a launch SASS metrics patched too
    // A read found the hardware buffer overflowed: restart (restartLocked) at the next launch,
    // after waiting for the context. Restarting from the writer thread while a kernel ran crashed
    // or hung programs on the H200 (a 3 s kernel under PcSamplingWithSass: SIGSEGV).
    bool restart_pending = false;
    bool gpu_busy = false;  // the last settle found the GPU busy: later ones only look (no wait)
    size_t reason_count = 0;
    StallReasonTable reasons;
    std::unique_ptr<Buffer> staging;  // CUPTI's SAMPLING_DATA_BUFFER
    std::unique_ptr<Buffer> user;     // what GetData fills
  };

  bool alternate() const {
    return scheduler_ && scheduler_->mode() == LaunchScheduler::Mode::Alternate;
  }
  bool enableLocked(CUcontext context);
  void collectLocked(Context& c);
  // cuptiPCSamplingSetConfigurationAttribute with the engine's options; names refused attributes.
  CUptiResult configureLocked(Context& c, std::string* refused);
  // Disable, Enable and configure again (after an overflow), sampling again if it was.
  void restartLocked(Context& c);
  // Alternate mode, at a launch whose data differs from the last one's: waits for the context,
  // stops sampling, collects what the previous phase sampled when it changes from patched to clean
  // or back, and starts sampling again when `sample`.
  void switchPhaseLocked(Context& c, bool sample, bool patched);  // the context has been waited for
  // Waits for the context with mutex_ released (never a wait under a lock launch callbacks take),
  // then restarts a pending context and switches the phase if still needed. Nothing while a stream
  // capture is open (a context wait would invalidate it): a later launch does it.
  void settleUnlocked(std::unique_lock<std::mutex>& lock, CUcontext handle, bool sample,
                      bool patched);
  void startLocked(Context& c);  // cuptiPCSamplingStart (start/stop control); a note when refused
  void emit(const std::vector<PcSampleAggregator::Row>& rows, bool patched, EventVisitor& out);
  void notePatchedLocked();  // at stop: decides which patched samples are kept, and says so
  void disableLocked(Context& c);
  void note(const std::string& status, const std::string& reason);

  std::shared_ptr<LaunchScheduler> scheduler_;
  std::shared_ptr<CubinStore> cubins_;
  const PcSamplingOptions options_;
  EngineContext ctx_;
  std::atomic<bool> started_{false};

  mutable std::mutex mutex_;  // guards everything below and every PC Sampling API call
  std::map<CUcontext, std::unique_ptr<Context>> contexts_;
  PcSampleAggregator aggregator_;
  PatchedSamples patched_;
  std::vector<PcSampleAggregator::Row> patched_kept_;  // written by the final drain
  int64_t last_emit_ns_ = 0;
  uint64_t total_samples_ = 0, dropped_samples_ = 0, buffer_full_ = 0, restarts_ = 0;
  std::set<std::string> noted_;
  // The GPUs this process PC-samples, by device index (gpu_claim.hpp: one sampling process per
  // GPU).
  std::map<uint32_t, std::unique_ptr<GpuClaim>> claims_;
};

}  // namespace gpufl::cuda
