// An L2 eviction for comparing cache-dependent counters with Nsight Compute (bench/deep_truth.py
// --cold-l2). With GPUFL_EXAMPLE_COLD_L2=1, coldL2() reads a buffer of three times the L2's size before
// the next kernel, so that kernel starts with none of its data in L2 and the earlier kernels' dirty lines
// are written back here, not during it: the state Nsight Compute's default --cache-control all gives each
// profiled kernel. A short kernel's DRAM bytes and L2 hit rate depend on what L2 holds when it starts
// (docs/measurements.md, 2026-11-29). Without the variable it does nothing.
//
// The kernel lives in its own file, so in its own module: beside the demos' kernels in one module,
// Nsight Compute reported smsp__sass_sectors_mem_global_ideal as n/a for every kernel of the module
// (H200, CUDA 13.0, 2026-11-30).
#pragma once

void coldL2();
