#!/usr/bin/env bash
# On the H200, after scripts/gpu-run.sh build: several processes of one program sharing the GPU, each recorded
# under `gpufl trace` with its own prefix, then compared (`gpufl report PREFIX...`) and exported as one Perfetto
# trace (one process per rank) and an SQLite database. The multi-GPU machines are not lent: the ranks share one
# GPU, so contention, not a planted fault, decides who straggles.
#   scripts/gpu-ranks.sh [BUILD_DIR] [RESULT_DIR] [RANKS]   (defaults: build/h200, out/results/ranks, 4)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/h200}
RES=${2:-out/results/ranks}
N=${3:-4}
G=$BUILD/apps/gpufl/gpufl
PROG=$BUILD/examples/cuda/kernel_zoo
mkdir -p "$RES"
prefixes=()
for ((r = 0; r < N; r++)); do
  timeout 120 "$G" trace -q -o "$RES/rank$r" -- "$PROG" > "$RES/rank$r.out" 2>&1 &
  prefixes+=("$RES/rank$r")
done
wait
"$G" report "${prefixes[@]}" > "$RES/report.txt" 2>&1; echo "report rc=$?"
/usr/bin/time -v "$G" export --perfetto "$RES/job.pftrace" --chrome "$RES/job.json" "${prefixes[@]}" \
  > "$RES/export.txt" 2>&1; echo "export rc=$?"
"$G" export --sqlite "$RES/rank0.db" "${prefixes[0]}" >> "$RES/export.txt" 2>&1; echo "sqlite rc=$?"
sed -n '/Ranks$/,/Scopes Across/p;/Stragglers/,$p' "$RES/report.txt"
grep -E "pftrace|json|db:|Maximum resident|Elapsed" "$RES/export.txt"
ls -l "$RES"
