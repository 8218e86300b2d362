#!/usr/bin/env bash
# Installs what GPU Flight needs from the distribution's packages (Debian 12 / Ubuntu 24.04).
#
#   scripts/install-deps.sh           what building and running need (scripts/run.sh)
#   scripts/install-deps.sh --test    and what the tests, benchmarks and lint need (scripts/test.sh)
#
# The CUDA toolkit is optional: without it the CUDA backend's headers come from NVIDIA's pip packages
# (scripts/fetch-cuda-headers.sh, hence python3-pip here), and the CUDA examples are skipped.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config
      libzstd-dev libsimdjson-dev libcli11-dev
      libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev
      libprotozero-dev libsqlite3-dev
      python3 python3-pip)
if [ "${1:-}" = --test ]; then
  pkgs+=(git zstd libgtest-dev libgmock-dev libbenchmark-dev
         prometheus victoria-metrics  # tests/fleet: `gpufl monitor` against real servers on loopback
         python3-dev python3-venv     # scripts/python-test.sh, scripts/build-wheel.sh: the Python package
         clang-format)                # scripts/lint.sh: Debian 12's clang-format 14 is the reference
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/install-deps.sh [--test]" >&2
  exit 2
fi
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
