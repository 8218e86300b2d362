#!/usr/bin/env bash
# Installs what is missing, lints (scripts/lint.sh), builds GPU Flight with its tests and runs all of them: the
# C++ suite (CTest), the Python package's suite (pytest, against a fresh `pip install` of the package), then the
# C++ suite again under ASan+UBSan. Works without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Lint first (seconds): ruff over python/, clang-format over src/ apps/ include/ (check only).
scripts/lint.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci -j "$(nproc)"
scripts/python-test.sh
# The C++ suite again under AddressSanitizer and UndefinedBehaviorSanitizer (preset asan: a Debug -O0 build of
# its own; tests that cannot run under the sanitizers carry a label the preset leaves out). GPUFL_ASAN=0 skips
# it for a quicker local run.
if [ "${GPUFL_ASAN:-1}" != 0 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$(nproc)"
  ctest --preset asan -j "$(nproc)"
fi
