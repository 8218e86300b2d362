#!/usr/bin/env bash
# The main job: install what building and running need, build, then profile a bundled CUDA example and print its
# report. Without a GPU (or without nvcc) it prints the report of a real session recorded on an NVIDIA H200 and
# bundled in tests/data. Test and lint tools are scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The CUDA backend needs only headers: the toolkit's, or, on a machine without it (a PyTorch machine: driver and
# pip wheels), NVIDIA's pip packages' (fetched once into build/cuda-headers; cmake/GpuflCudaHeaders.cmake).
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  scripts/fetch-cuda-headers.sh
fi
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUFL_BUILD_TESTS=OFF \
      -DGPUFL_BUILD_EXAMPLES=ON >/dev/null
cmake --build build/release -j "$(nproc)"
gpufl=build/release/apps/gpufl/gpufl
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 \
   && [ -x build/release/examples/cuda/memory_coalescing_demo ]; then
  mkdir -p out && cd out
  ../build/release/examples/cuda/memory_coalescing_demo
else
  echo "No usable GPU here: showing the report of a session recorded on an NVIDIA H200."
  echo
  "$gpufl" report tests/data/h200/memory_coalescing
fi
