// A deterministic synthetic session: a bf16 transformer training loop on one H200, as GPU Flight
// would record it. Used by gpufl_gen_session (logs for the reader, the report and bytes-per-kernel)
// and bench_writer.
//
// Model (each choice is an assumption, stated so readers can judge the numbers derived from it):
//  - scopes epoch > step > forward | backward | optimizer; 48 / 80 / 8 kernels per phase, 200 steps
//  per epoch;
//  - each phase's kernels drawn from the catalog's weights (a few kernels dominate), either once
//  per session
//    and repeated every step with 1% of launches redrawn (repeat_steps: a training step is a fixed
//    program), or independently for every launch (the least compressible case);
//  - durations: the kernel's base with 1.5% normal jitter, 0.3% of launches 20-60% slower;
//  - GPU timestamps quantized to 32 ns (assumed resolution of Hopper's globaltimer as CUPTI reports
//  it);
//  - on a stream, the next kernel starts 1-5 us after the previous one ends; NCCL and the aux
//  stream overlap the
//    compute stream; 2% of kernels are delivered after their successor (CUPTI's order is not start
//    order);
//  - correlation ids advance by 1 per launch plus other runtime calls (15%: one, 5%: two to four);
//  - per step an HtoD batch copy (copy stream), a memset and a DtoH loss copy;
//  - one GPU and one host sample every 100 ms of GPU time; notes at start.
#pragma once

#include <cstdint>
#include <functional>

#include "core/event_visitor.hpp"

namespace gpufl::bench {

struct SessionSpec {
  uint64_t kernels = 1'000'000;
  uint64_t seed = 1;
  uint32_t index = 0;  // the session's number under its prefix: another id, a later start
  bool repeat_steps = true;
  // A planted regression (gpufl diff's tests): every launch of kernel def `slower_kernel` takes
  // `slower_factor` times as long (0: none).
  uint32_t slower_kernel = 0;
  double slower_factor = 1.0;
};

// Emits one complete session (session_start ... session_end) into `out`. The same spec gives the
// same events. `bytes_written`, when given, supplies session_end.bytes_written (the writer's count
// at that point).
void generateSession(const SessionSpec& spec, EventVisitor& out,
                     const std::function<uint64_t()>& bytes_written = {});

}  // namespace gpufl::bench
