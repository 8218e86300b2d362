#!/usr/bin/env bash
# Builds GPU Flight with its tests and runs all of them (C++ via CTest). Works without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci -j "$(nproc)"
