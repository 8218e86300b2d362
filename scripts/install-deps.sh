#!/usr/bin/env bash
# Installs what GPU Flight needs to build and test, from the distribution's packages (Debian 12 / Ubuntu 24.04).
# The CUDA toolkit is optional: without it the GPU-free parts build and the CUDA backend is skipped.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config git
      libzstd-dev zstd libsimdjson-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
      libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev
      libprotozero-dev libsqlite3-dev
      prometheus victoria-metrics
      python3 python3-dev python3-venv python3-pip
      clang-format)  # scripts/lint.sh: Debian 12's clang-format 14 is the reference
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
