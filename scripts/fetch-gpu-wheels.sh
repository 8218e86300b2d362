#!/usr/bin/env bash
# What the GPU machine's `wheel` step (scripts/gpu-run.sh wheel) needs and cannot download there (no network):
# gpufl's wheel for its Python (3.12), built here by scripts/build-wheel.sh with a Python 3.12, and NVIDIA's
# libcupti wheel (the cu13 extra), for CPython 3.12 on manylinux x86_64. Both go into .whl/, which the device
# call carries (carry [".whl"]; 64 MiB in all: about 10 MB each).
#
#   scripts/fetch-gpu-wheels.sh
#
# Environment: PYTHON312 (a Python 3.12 to build with; default python3.12).
set -euo pipefail
cd "$(dirname "$0")/.."
PY312=${PYTHON312:-python3.12}
command -v "$PY312" >/dev/null || { echo "fetch-gpu-wheels: no $PY312 (PYTHON312=...)" >&2; exit 1; }
mkdir -p .whl
rm -f .whl/gpufl-*.whl .whl/nvidia_cuda_cupti-*.whl
PYTHON=$PY312 GPUFL_WHEEL_DIR="$PWD/build/wheel/dist-cp312" scripts/build-wheel.sh
cp build/wheel/dist-cp312/gpufl-*.whl .whl/
# The CUPTI of the GPU machines' CUDA (13.0, driver 580): a newer CUPTI may need a newer driver.
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_25_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .whl "nvidia-cuda-cupti>=13.0,<13.1"
ls -la .whl/gpufl-*.whl .whl/nvidia_cuda_cupti-*.whl
du -ch .whl/*.whl | tail -1
