#!/usr/bin/env bash
# Builds and installs the gpufl Python package (extension + runtime + CLI, from the same CMake tree) into a venv
# under build/pyvenv, then runs the Python tests. Works without a GPU; run scripts/install-deps.sh --test first on a fresh
# machine (it brings python3-venv and python3-dev).
#
#   scripts/python-test.sh [pytest args...]
#
# Environment: PYTHON (interpreter for the venv, default python3), GPUFL_PYVENV (venv dir, default
# build/pyvenv), CMAKE_BUILD_PARALLEL_LEVEL (default: number of cores), GPUFL_PY_WHEEL (a wheel built by
# scripts/build-wheel.sh: installed instead of building the package here; CI tests the wheel so). Without network (the GPU test machine),
# the venv sees the system's site-packages, so preinstalled scikit-build-core, nanobind, pandas, rich, matplotlib
# and pytest are used and nothing is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
VENV=${GPUFL_PYVENV:-$ROOT/build/pyvenv}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv --system-site-packages "$VENV"
fi
VPY=$VENV/bin/python
pip_quiet=(-q --disable-pip-version-check)

# Build requirements inside the venv, then build without isolation: the build tree (build/py/<tag>) and its CMake
# cache stay valid between runs, so a second run only rebuilds what changed (and no network is needed when
# they are already there).
if [ -z "${GPUFL_PY_WHEEL:-}" ] && ! "$VPY" -c "import scikit_build_core, nanobind" 2>/dev/null; then
  "$VPY" -m pip install "${pip_quiet[@]}" "scikit-build-core>=0.10" "nanobind>=2.0"
fi
missing=()
for mod in pandas rich matplotlib pytest numpy perfetto; do
  "$VPY" -c "import $mod" 2>/dev/null || missing+=("$mod")
done
if [ ${#missing[@]} -gt 0 ]; then
  "$VPY" -m pip install "${pip_quiet[@]}" "${missing[@]}"
fi
# The official OTLP protobuf classes, to decode what `gpufl agent --otlp` sends (test_agent_otlp.py; skipped
# where it cannot be installed, e.g. the offline H200).
"$VPY" -c "import opentelemetry.proto" 2>/dev/null ||
  "$VPY" -m pip install "${pip_quiet[@]}" "opentelemetry-proto>=1.20" ||
  echo "=== opentelemetry-proto cannot be installed here: test_agent_otlp.py will skip"
# Three independent Parquet readers for `gpufl export --parquet` (test_export_parquet.py; skipped where they
# cannot be installed, e.g. the offline H200). About 50 s to download and install on a fresh machine.
for mod in pyarrow polars duckdb; do
  "$VPY" -c "import $mod" 2>/dev/null ||
    "$VPY" -m pip install "${pip_quiet[@]}" "$mod" ||
    echo "=== $mod cannot be installed here: test_export_parquet.py will skip"
done

if [ -n "${GPUFL_PY_WHEEL:-}" ]; then
  echo "=== installing $GPUFL_PY_WHEEL into $VENV (no build)"
  "$VPY" -m pip install "${pip_quiet[@]}" --no-deps --force-reinstall "$GPUFL_PY_WHEEL"
  cd "$ROOT/build"
  export MPLBACKEND=Agg
  exec "$VPY" -m pytest -q -p no:cacheprovider "$ROOT/python/tests" "$@"
fi

# pip shows nothing while the backend builds (minutes when cold): run it verbose into a log and report the
# build's [done/total] steps from that log every 15 s; on failure, the end of the log.
LOG=$VENV/pip-install.log
echo "=== building and installing gpufl into $VENV (-j$CMAKE_BUILD_PARALLEL_LEVEL): the C++ extension, runtime" \
     "library and CLI; a few minutes when nothing is built yet (log: $LOG)"
t0=$(date +%s)
"$VPY" -m pip install -v --disable-pip-version-check --no-build-isolation --no-deps ".[analyzer,viz]" \
  > "$LOG" 2>&1 &
pip_pid=$!
last=""
while kill -0 "$pip_pid" 2>/dev/null; do
  sleep 3
  step=$(grep -oE '^ *\[[0-9]+/[0-9]+\]' "$LOG" 2>/dev/null | tail -1 | tr -d ' ' || true)
  if [ -n "$step" ] && [ "$step" != "$last" ] && [ $(( $(date +%s) - t0 )) -ge "${next_report:-0}" ]; then
    echo "    compiling: step ${step//[\[\]]/} after $(( $(date +%s) - t0 )) s"
    last=$step
    next_report=$(( $(date +%s) - t0 + 15 ))
  fi
done
if ! wait "$pip_pid"; then
  echo "=== pip install failed; the end of $LOG:" >&2
  tail -n 60 "$LOG" >&2
  exit 1
fi
echo "=== installed in $(( $(date +%s) - t0 )) s: $("$VPY" -c 'import gpufl; print("gpufl", gpufl.__version__, gpufl.__file__)')"

# Run from outside the source tree so `import gpufl` is the installed package, not python/gpufl.
cd "$ROOT/build"
export MPLBACKEND=Agg
exec "$VPY" -m pytest -q -p no:cacheprovider "$ROOT/python/tests" "$@"
