// The torture suite's programs: CUDA patterns that real programs use and our examples do not
// (several threads, CUDA graphs, cooperative and cluster launches, big shared memory, long
// launches, JIT code, abrupt exits, child processes). Each case counts the kernels it launched
// itself and prints `COUNT <kernel> <n>` and a deterministic `RESULT` line, so
// tests/gpu/torture/run_torture.py can check that a profiled run printed the same and that the log
// holds the same kernel counts.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "common.cuh"  // CUDA_CHECK, from examples/cuda

namespace torture {

// Kernels launched by the program, by (demangled, unqualified) name. Thread-safe.
void count(const std::string& kernel, long n = 1);
// Prints every count (sorted) and flushes stdout: cases that end abruptly call it before.
void printCounts();
// A value that depends on what the kernels computed, printed as `RESULT <case> <value>`.
void result(const char* name, double value);

using Case = std::function<int(int argc, char** argv)>;  // returns the exit status
std::map<std::string, Case>& cases();
struct Register {
  Register(const char* name, Case c) { cases()[name] = std::move(c); }
};

// A user scope: an NVTX push/pop range (a gpufl scope both linked and under `gpufl trace`).
struct Range {
  explicit Range(const char* name);
  ~Range();
};

}  // namespace torture
