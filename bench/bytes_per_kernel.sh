#!/usr/bin/env bash
# Compressed bytes per kernel event of a synthetic 1M-kernel H200 training session (target: <= 8).
# Writes the session with gpufl_gen_session (no rotation), compresses each channel file with `zstd -3` and divides
# the total (all three channels: kernels pay for the scopes, copies and samples around them) by the kernel count.
# Two kernel mixes: "loop" (each step repeats one kernel program, as training does) and "iid" (every launch drawn
# independently: the least compressible case).
#   bench/bytes_per_kernel.sh [BUILD_DIR] [KERNELS]     (BUILD_DIR default: build/bench, then build/*)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-}
kernels=${2:-1000000}
target=8

gen=""
for d in ${build:+"$build"} build/bench build/*; do
  if [[ -x "$d/gpufl_gen_session" ]]; then gen="$d/gpufl_gen_session"; break; fi
  if [[ -x "$d/bench/gpufl_gen_session" ]]; then gen="$d/bench/gpufl_gen_session"; break; fi
done
if [[ -z "$gen" ]]; then
  echo "gpufl_gen_session not found: configure with -DGPUFL_BUILD_BENCH=ON and build it (or pass BUILD_DIR)" >&2
  exit 1
fi
command -v zstd >/dev/null || { echo "the zstd command is needed (Debian: zstd)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/gpufl_bpk.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "# $gen, $kernels kernels, zstd $(zstd -V | grep -o 'v[0-9.]*'), level 3"
printf '%-5s %-8s %14s %14s %10s %10s\n' mix channel raw_bytes zstd3_bytes raw_B/k zstd_B/k
for mix in loop iid; do
  flags=()
  [[ $mix == iid ]] && flags=(--iid)
  "$gen" --prefix "$tmp/$mix" --kernels "$kernels" --rotate-bytes 0 "${flags[@]}" >/dev/null
  raw_total=0
  zst_total=0
  for ch in device scope system; do
    f="$tmp/$mix.$ch.log"
    zstd -q -3 -f "$f" -o "$f.zst"
    raw=$(stat -c %s "$f")
    zst=$(stat -c %s "$f.zst")
    raw_total=$((raw_total + raw))
    zst_total=$((zst_total + zst))
    awk -v m="$mix" -v c="$ch" -v r="$raw" -v z="$zst" -v n="$kernels" \
      'BEGIN { printf "%-5s %-8s %14d %14d %10.2f %10.2f\n", m, c, r, z, r / n, z / n }'
  done
  awk -v m="$mix" -v r="$raw_total" -v z="$zst_total" -v n="$kernels" -v t="$target" 'BEGIN {
    bpk = z / n
    printf "%-5s %-8s %14d %14d %10.2f %10.2f  ", m, "total", r, z, r / n, bpk
    if (bpk <= t) printf "target <= %d: met\n", t
    else printf "target <= %d: missed by %.2f B/kernel (%.0f%%)\n", t, bpk - t, 100 * (bpk - t) / t
  }'
done
