#!/usr/bin/env bash
# The Python side on the GPU test machine (no network): builds and installs the package with the preinstalled
# scikit-build-core/nanobind into a venv that sees the system's pandas/torch/numba, runs the Python tests, the two
# Python examples and `gpufl trace -- python ...`, and leaves logs, reports and plots in $OUT/python.
# Usage (repository root): python/gpu_check.sh      (scripts/gpu-run.sh may call it as its "python" step)
#        GPUFL_PY_STEPS="nvtx" python/gpu_check.sh   (install, then only the named steps: pytest examples linked
#                                                     bench nvtx trace; default all)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
RES=$OUT/python
mkdir -p "$RES"
log() { echo "=== $* ($(date +%T))"; }
STEPS=${GPUFL_PY_STEPS:-pytest examples bench linked nvtx trace}
want() { [[ " $STEPS " == *" $1 "* ]]; }

# simdjson is not on the GPU image: unpack the carried .deb files into a private prefix (the wheel then bundles
# libsimdjson next to the extension, found through RPATH $ORIGIN).
DEPS=/tmp/gpufl-deps
if [ -d .deb ] && [ ! -d $DEPS ]; then
  for f in .deb/*.deb; do dpkg -x "$f" $DEPS; done
fi
export CMAKE_PREFIX_PATH=$DEPS/usr:${CMAKE_PREFIX_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

VENV=${GPUFL_PYVENV:-/tmp/gpufl-pyvenv}
[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
VPY=$VENV/bin/python
# The image's Python packages may live outside the system site (user site, PYTHONPATH) that a venv inherits:
# make the venv see exactly what python3 sees.
if ! "$VPY" -c "import scikit_build_core, nanobind" 2>/dev/null; then
  purelib=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  python3 -c 'import sys, os, sysconfig
std = sysconfig.get_paths()["stdlib"]
for p in sys.path:
    if p and os.path.isdir(p) and not p.startswith(std):
        print(p)' > "$purelib/_gpufl_system_paths.pth"
  echo "venv: added $(wc -l < "$purelib/_gpufl_system_paths.pth") paths of python3 ($(python3 -c 'import scikit_build_core as m; print(m.__file__)' 2>&1 | tail -1))"
fi

log "pip install (no build isolation)"
t0=$(date +%s)
GPUFL_WITH_CUDA=ON "$VPY" -m pip install -q --no-build-isolation --no-deps --no-index . > "$RES/pip.txt" 2>&1 \
  || { tail -40 "$RES/pip.txt"; exit 1; }
echo "installed in $(( $(date +%s) - t0 )) s"
site=$("$VPY" -c 'import gpufl, os; print(os.path.dirname(gpufl.__file__))')
ls -la "$site" "$site/bin" > "$RES/package.txt" 2>&1
for f in "$site"/*.so* "$site/bin/gpufl"; do echo "== $f"; readelf -d "$f" | grep -E 'NEEDED|RUNPATH'; done \
  >> "$RES/package.txt" 2>&1

if want pytest; then
log "pytest"
(cd /tmp && MPLBACKEND=Agg "$VPY" -m pytest -q -p no:cacheprovider "$ROOT/python/tests" -rs) > "$RES/pytest.txt" 2>&1
tail -15 "$RES/pytest.txt"
fi

mkdir -p "$RES/run" && cd "$RES/run"
if want examples; then
log "examples"
# numba-cuda 0.68 calls np.row_stack, gone in the image's numpy: alias it before numba is imported.
for script in numba_matmul numba_matmul_tiled; do
  timeout 180 "$VPY" -c "import numpy as np; np.row_stack = getattr(np, 'row_stack', np.vstack); import runpy; \
runpy.run_path('$ROOT/examples/python/$script.py', run_name='__main__')" > $script.txt 2>&1
  echo "$script exit $?"
  grep -E "OK|Total Kernels|Memory Eff|smsp__sass_sectors|Avg Threads|stall samples" $script.txt | head
done
MPLBACKEND=Agg timeout 120 "$VPY" "$ROOT/examples/python/pytorch_smoke.py" > pytorch_smoke.txt 2>&1
echo "pytorch_smoke exit $?"; grep -E "GPU Device|Kernels|GPU Busy|Peak VRAM" pytorch_smoke.txt | head

fi

if want bench; then
log "gpufl.bench: matmul sweep fp32 (TF32 off) and bf16, graph replay, L2 flush (examples/python/bench_matmul_sweep.py)"
MPLBACKEND=Agg timeout 300 "$VPY" "$ROOT/examples/python/bench_matmul_sweep.py" --out "$RES/bench" > bench_sweep.txt 2>&1
echo "bench_matmul_sweep exit $?"; grep -E "flattens|bound|peak|!|add_1k|copy_64MiB" bench_sweep.txt | head -30
fi

if want linked; then
log "training loop linked (gpufl.init), None and PcSampling"
for e in None PcSampling; do
  timeout 120 "$VPY" "$ROOT/examples/python/train_loop.py" --steps 50 --linked $e > train_linked_$e.txt 2>&1
  echo "train_loop --linked $e exit $?"; grep -E "train_loop:|Total Kernels|stall samples" train_linked_$e.txt | head -4
done

fi

if want nvtx; then
log "NVTX ranges as scopes"
timeout 120 "$VPY" -X faulthandler "$ROOT/examples/python/nvtx_ranges.py" > nvtx_linked.txt 2>&1
rc=$?; echo "nvtx linked exit $rc"
if [ $rc -ne 0 ]; then
  grep -v '^  File "<frozen' nvtx_linked.txt | head -30
  # Which libcupti/libnvToolsExt files the dynamic loader opened, and in what order.
  LD_DEBUG=files timeout 120 "$VPY" "$ROOT/examples/python/nvtx_ranges.py" 2>&1 \
    | grep -E "file=.*(cupti|nvToolsExt|nvtx|gpufl)[^ ]*\.so.*\[0\];  (needed|dynamically loaded)|calling init: .*(cupti|gpufl)" \
    | sed -E 's/^ *[0-9]+: *//' | head -20
  # What aborts: gpufl.init() before `import torch` aborted in the third session whatever NVTX was doing
  # (torch imported first was fine). The same small program, varying what comes before torch.
  wheel_cupti=$("$VPY" -c "import glob, os; from gpufl._api import _prefer_wheel_cupti as p; d = (p() or '').split(':')[0]; print((sorted(glob.glob(os.path.join(d, 'libcupti.so*'))) or [''])[0] if d else '')")
  cat > order_variant.py <<'PY'
import ctypes, os, sys
what = sys.argv[1]
if what == "stdcxx_global_first":
    ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)
if what == "cupti_first_no_gpufl":
    ctypes.CDLL(os.environ["WHEEL_CUPTI"])
if what == "cuinit_first_no_gpufl":
    assert ctypes.CDLL("libcuda.so.1").cuInit(0) == 0
if what not in ("cupti_first_no_gpufl", "cuinit_first_no_gpufl"):
    import gpufl
if what in ("init_first", "stdcxx_global_first", "init_no_sampling_first"):
    gpufl.init("v", log_path="./order_variant", system_sample_rate_ms=0, enable_nvtx=False,
               sampling_auto_start=what != "init_no_sampling_first")
if what == "init_shutdown_first":
    gpufl.init("v", log_path="./order_variant", system_sample_rate_ms=0); gpufl.shutdown()
import torch
x = torch.randn(64, 64, device="cuda"); y = x @ x; torch.cuda.synchronize()
print("variant ok")
PY
  for v in import_only init_shutdown_first init_first init_no_sampling_first stdcxx_global_first \
           cupti_first_no_gpufl cuinit_first_no_gpufl; do
    WHEEL_CUPTI=$wheel_cupti timeout 120 "$VPY" order_variant.py $v > "o_$v.txt" 2>&1
    echo "order variant $v: exit $? $(grep -m1 -E 'variant ok|free\(\)|Error|error' "o_$v.txt")"
  done
  # Where free() is called from (cuda-gdb debugs host programs; there is no gdb there).
  timeout 120 cuda-gdb -q -batch -ex "set pagination off" -ex run -ex bt --args "$VPY" order_variant.py init_first \
    > gdb_init_first.txt 2>&1
  grep -E "^#[0-9]+ " gdb_init_first.txt | cut -c1-200 | head -25
else
  tail -25 nvtx_linked.txt
fi
timeout 120 "$VENV/bin/gpufl" trace -o "$RES/run/nvtx_traced" -- "$VPY" "$ROOT/examples/python/nvtx_ranges.py" \
  > nvtx_traced.txt 2>&1; echo "nvtx traced exit $?"
tail -12 nvtx_traced.txt
"$VENV/bin/gpufl" cat "$RES/run/nvtx_traced" | grep -E '"scope_begin"' | grep -o '"name":"[^"]*","tag":"[^"]*"' | sort | uniq -c | sort -rn | head -12

fi

if want trace; then
log "gpufl trace -- python"
timeout 90 "$VENV/bin/gpufl" trace -o "$RES/run/traced" -- "$VPY" "$ROOT/examples/python/train_loop.py" --steps 50 \
  > trace.txt 2>&1
echo "trace exit $?"; tail -5 trace.txt
"$VENV/bin/gpufl" report "$RES/run/traced" > traced.report.txt 2>&1; head -40 traced.report.txt | tail -25
fi
cd "$ROOT"
log "done: $RES"
