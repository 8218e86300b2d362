#!/usr/bin/env bash
# Rewrites the expected outputs of the report golden tests (tests/golden/<case>/expected.{txt,json}) from their
# inputs, with the current report code, and the CLI's text at 80, 120 and 200 columns (tests/golden/cli). Review the resulting diff by hand before committing it: the goldens are
# only worth something if every changed figure was checked.
#   scripts/regen-goldens.sh [BUILD_DIR]     (default build/golden)
# To change the inputs themselves, edit tests/golden/make_inputs.py and run it first.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/golden}"
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUFL_BUILD_TESTS=ON >/dev/null
fi
cmake --build "$build" --target gpufl_report_golden_test gpufl_cli_output_test -j "${JOBS:-2}"
test_bin="$(find "$build" -name gpufl_report_golden_test -type f -perm -u+x | head -n 1)"
GPUFL_REGEN_GOLDENS=1 "$test_bin" --gtest_filter='Cases/Golden.*' >/dev/null
"$test_bin"
# The CLI's text at 80, 120 and 200 columns (tests/golden/cli).
cli_bin="$(find "$build" -name gpufl_cli_output_test -type f -perm -u+x | head -n 1)"
GPUFL_REGEN_GOLDENS=1 "$cli_bin" --gtest_filter='CliGolden.*' >/dev/null
"$cli_bin" --gtest_filter='CliGolden.*'

git --no-pager diff --stat -- tests/golden 2>/dev/null || true
