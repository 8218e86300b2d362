#!/usr/bin/env bash
# The wheel as a user gets it: a fresh venv (no system site-packages) holding only the wheel and its cu13 extra
# (NVIDIA's libcupti wheel), run with no CUDA toolkit and no compiler in sight. Checks `import gpufl`,
# `gpufl --version`, `gpufl doctor --json` (a verdict for each engine), that the CUDA backend is in the wheel, and
# that the libcupti gpufl finds is the nvidia wheel's.
#
#   scripts/wheel-check.sh [WHEEL]        default: the one dist/gpufl-*.whl
#
# The toolkit is hidden where this process may make a private mount namespace (root, as on CI): /usr/local/cuda is
# covered there by an empty directory, so that a libcupti found can only be the wheel's. Elsewhere the check still
# runs and says that the toolkit was visible. Environment: PYTHON (default python3), GPUFL_WHEEL_OFFLINE=1 (no
# network: install the wheel alone, no cu13 extra, and expect no libcupti).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
wheel=${1:-$(ls "$ROOT"/dist/gpufl-*.whl)}
wheel=$(readlink -f "$wheel")
t0=$(date +%s)
WORK=$(mktemp -d /tmp/gpufl-wheel-check.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
VENV=$WORK/venv
"$PY" -m venv "$VENV"
pip=("$VENV/bin/python" -m pip install -q --disable-pip-version-check)
if [ "${GPUFL_WHEEL_OFFLINE:-0}" = 1 ]; then
  "${pip[@]}" --no-index --no-deps "$wheel"
else
  "${pip[@]}" "$wheel[cu13]"
fi

# What runs below sees the venv and the system's basic tools; no compiler, no CUDA variable.
mkdir -p "$WORK/bin"
for tool in sh env cat; do ln -s "$(command -v $tool)" "$WORK/bin/$tool"; done
cat > "$WORK/check.sh" <<EOF
set -eu
cd "$WORK"   # not the source tree: \`import gpufl\` must be the installed package
if command -v cc >/dev/null 2>&1 || command -v c++ >/dev/null 2>&1 || command -v nvcc >/dev/null 2>&1; then
  echo "wheel-check: a compiler is on PATH (\$PATH)"; exit 1
fi
echo "toolkit: \$(if [ -e /usr/local/cuda/lib64 ]; then echo visible at /usr/local/cuda; else echo hidden; fi)"
python -c 'import gpufl; print("import gpufl:", gpufl.__version__, gpufl.__file__)'
gpufl --version
gpufl doctor --json > doctor.json
gpufl doctor --no-kernel > doctor.txt
cat doctor.txt
python - "${GPUFL_WHEEL_OFFLINE:-0}" <<'PYEOF'
import json, sys
offline = sys.argv[1] == "1"
d = json.load(open("doctor.json"))
engines = [e["engine"] for e in d["engines"]]
assert engines == ["None", "PcSampling", "SassMetrics", "PcSamplingWithSass", "RangeProfiler"], engines
assert d["build"]["cuda_backend"] is True, "the wheel has no CUDA backend: %s" % d["build"]
assert "pip packages" in d["build"]["headers_from"], d["build"]["headers_from"]
cupti = d["cupti"]
if offline:
    print("libcupti:", cupti["path"] or cupti["error"])
else:
    assert cupti["found"] and "pip wheel" in cupti["origin"], "libcupti not from the nvidia wheel: %s" % cupti
    print("libcupti:", cupti["path"], "(" + cupti["origin"] + ")")
print("doctor --json: ok;", d["summary"])
PYEOF
EOF
run=(env -i HOME="$HOME" LANG=C.UTF-8 PATH="$VENV/bin:$WORK/bin" sh "$WORK/check.sh")
if [ -d /usr/local/cuda ] && unshare -m true 2>/dev/null; then
  mkdir -p "$WORK/empty"
  unshare -m sh -c "mount --bind '$WORK/empty' /usr/local/cuda && exec \"\$@\"" sh "${run[@]}"
else
  "${run[@]}"
fi
echo "=== wheel-check: passed in $(( $(date +%s) - t0 )) s ($(basename "$wheel"))"
