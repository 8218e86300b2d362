#!/usr/bin/env bash
# Installs what is missing, builds GPU Flight with its tests and runs all of them: the C++ suite (CTest) and the
# Python package's suite (pytest, against a fresh `pip install` of the package). Works without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci -j "$(nproc)"
scripts/python-test.sh
