#!/usr/bin/env bash
# Installs what is missing, lints (scripts/lint.sh), builds GPU Flight with its tests and runs all of them: the
# C++ suite (CTest); the wheel, built with the CUDA headers of NVIDIA's pip packages (the toolkit ignored) and
# checked in a fresh venv without toolkit or compiler; the Python package's suite (pytest, against that wheel); then
# the C++ suite again under ASan+UBSan. Works without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
# Lint first (seconds): ruff over python/, clang-format over src/ apps/ include/ (check only).
scripts/lint.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci -j "$(nproc)"
# The wheel is the Python package's one build here (scripts/python-test.sh installs it rather than building again).
# GPUFL_WHEEL=0 skips the wheel and lets python-test.sh build the package from source instead.
if [ "${GPUFL_WHEEL:-1}" != 0 ]; then
  scripts/build-wheel.sh
  scripts/wheel-check.sh
  GPUFL_PY_WHEEL=$(ls dist/gpufl-*.whl) scripts/python-test.sh
else
  scripts/python-test.sh
fi
# The C++ suite again under AddressSanitizer and UndefinedBehaviorSanitizer (preset asan: a Debug -O0 build of
# its own; tests that cannot run under the sanitizers carry a label the preset leaves out). GPUFL_ASAN=0 skips
# it for a quicker local run.
if [ "${GPUFL_ASAN:-1}" != 0 ]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$(nproc)"
  ctest --preset asan -j "$(nproc)"
fi
