// An L2 eviction for comparing cache-dependent counters with Nsight Compute (bench/deep_truth.py
// --cold-l2). With GPUFL_EXAMPLE_COLD_L2=1, coldL2() reads a buffer of three times the L2's size
// before the next kernel, so that kernel starts with none of its data in L2 and the earlier
// kernels' dirty lines are written back here, not during it: the state Nsight Compute's default
// --cache-control all gives each profiled kernel. A short kernel's DRAM bytes and L2 hit rate
// depend on what L2 holds when it starts (docs/measurements.md, 2026-11-29). Without the variable
// it does nothing. Not pushed out: what the program had just copied to the GPU (the first kernel of
// each demo still wrote 2.4-4.7 MB back, H200, 2026-11-30).
//
// In its own file (its own module), so the demos' modules hold the seeds' kernels only.
#pragma once

void coldL2();
