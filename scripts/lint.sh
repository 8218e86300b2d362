#!/usr/bin/env bash
# Lint, check only (nothing is rewritten): ruff over python/ and mypy over python/gpufl (the versions pinned in
# pyproject.toml's `lint` extra, rules in [tool.ruff] and [tool.mypy]), and clang-format over every C++ and CUDA file of the repository (.clang-format;
# fails on any file it would change). A few seconds; scripts/test.sh runs it first, so CI fails fast on either.
#
#   scripts/lint.sh            check
#   scripts/lint.sh --fix      rewrite instead: clang-format -i, ruff check --fix (then review the diff)
#
# clang-format's output differs between major versions; the reference is Debian 12's clang-format 14
# (scripts/install-deps.sh --test). With another major version the C++ check is skipped with a message, not failed.
# Environment: GPUFL_PYVENV (the venv ruff is installed into, default build/pyvenv, shared with
# scripts/python-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
fix=0
[ "${1:-}" = "--fix" ] && fix=1
status=0

# --- C++: clang-format
cxx_files() {
  if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh'
  else
    find . -path ./build -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' \
      -o -name '*.cuh' \) -print | sort
  fi
}
CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null; then
  echo "lint: $CF not found (scripts/install-deps.sh --test installs it)" >&2
  status=1
elif ! "$CF" --version | grep -q "version 14\."; then
  echo "lint: skipping the C++ check: $("$CF" --version) is not clang-format 14, the reference" >&2
else
  mapfile -t files < <(cxx_files)
  if [ "$fix" = 1 ]; then
    "$CF" -i "${files[@]}"
  elif ! "$CF" --dry-run -Werror "${files[@]}" 2>/tmp/gpufl-clang-format.$$; then
    grep -E "^[^ ].*: error:" /tmp/gpufl-clang-format.$$ | cut -d: -f1 | sort -u | sed 's/^/lint: not clang-formatted: /' >&2
    echo "lint: run scripts/lint.sh --fix (or clang-format -i FILE) and commit the result" >&2
    status=1
  fi
  rm -f /tmp/gpufl-clang-format.$$
  echo "lint: clang-format checked ${#files[@]} files"
fi

# --- Python: ruff and mypy, pinned (pyproject.toml's `lint` extra)
VENV=${GPUFL_PYVENV:-$ROOT/build/pyvenv}
mapfile -t pins < <(python3 - <<'PY'
import re
text = open("pyproject.toml").read()
m = re.search(r'^lint = \[([^\]]*)\]', text, re.M)
for pin in re.findall(r'"([^"]+)"', m.group(1) if m else ""):
    print(pin)
PY
)
for tool in ruff mypy; do
  if ! printf '%s\n' "${pins[@]}" | grep -q "^$tool=="; then
    echo "lint: pyproject.toml's lint extra pins no $tool (lint = [\"ruff==...\", \"mypy==...\"])" >&2
    exit 1
  fi
done
[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"
installed=$("$VENV/bin/python" -m pip list --format=freeze 2>/dev/null | tr 'A-Z' 'a-z')
for pin in "${pins[@]}"; do
  if ! grep -qx "$pin" <<<"$installed"; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
    break
  fi
done
if [ "$fix" = 1 ]; then
  "$VENV/bin/python" -m ruff check --fix . || status=1
else
  "$VENV/bin/python" -m ruff check . || status=1
fi
# The package's type hints, checked ([tool.mypy] in pyproject.toml; python/gpufl/py.typed publishes them).
"$VENV/bin/python" -m mypy --cache-dir "$VENV/mypy-cache" || status=1
exit $status
