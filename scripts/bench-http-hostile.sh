#!/usr/bin/env bash
# A scraper's latency while hostile clients hold connections (loopback only): IDLE connections that never
# send a byte and SLOW ones that trickle an endless request head, against gpufl_http_load's own guarded server
# and against `gpufl monitor` (two scripted GPUs); then SIGTERM to a monitor with them still connected, timed.
# Latency: connect to the whole response, one new connection per scrape (gpufl_http_load).
# Usage: scripts/bench-http-hostile.sh BUILD_DIR [IDLE] [SLOW] [SCRAPES]   (default 200 200 200)
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [IDLE] [SLOW] [SCRAPES]}
IDLE=${2:-200}; SLOW=${3:-200}; SCRAPES=${4:-200}
GPUFL=$BUILD/apps/gpufl/gpufl
LOAD=$BUILD/src/http/gpufl_http_load
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT

echo "== gpufl_http_load's own guarded server (a 20 kB /metrics)"
timeout -k 5 120 "$LOAD" --idle "$IDLE" --slow "$SLOW" --scrapes "$SCRAPES" || echo "(a scrape failed)"

echo "== gpufl monitor --interval 100 (scripted NVML)"
"$GPUFL" monitor --interval 100 --listen 127.0.0.1:0 --nvml-script "$ROOT/tests/fleet/two_gpus.ndjson" \
  2> "$TMP/err" &
PID=$!
for _ in $(seq 100); do grep -q "listening on" "$TMP/err" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$TMP/err")
[ -n "$PORT" ] || { cat "$TMP/err"; exit 1; }
timeout -k 5 120 "$LOAD" --port "$PORT" --idle "$IDLE" --slow "$SLOW" --scrapes "$SCRAPES" || echo "(a scrape failed)"
kill -TERM $PID
wait $PID || true
PID=
# SIGTERM with the hostile clients still connected: a second run, stopped in the middle.
"$GPUFL" monitor --interval 100 --listen 127.0.0.1:0 --nvml-script "$ROOT/tests/fleet/two_gpus.ndjson" \
  2> "$TMP/err2" &
PID=$!
for _ in $(seq 100); do grep -q "listening on" "$TMP/err2" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$TMP/err2")
timeout -k 5 60 "$LOAD" --port "$PORT" --idle "$IDLE" --slow "$SLOW" --scrapes 100 >/dev/null 2>&1 &
LOADPID=$!
sleep 3
t0=$(date +%s.%N)
kill -TERM $PID
wait $PID || true
t1=$(date +%s.%N)
PID=
kill $LOADPID 2>/dev/null || true
wait $LOADPID 2>/dev/null || true
awk -v t0="$t0" -v t1="$t1" 'BEGIN { printf "monitor: exited %.0f ms after SIGTERM with %s idle + %s slow clients connected\n", (t1 - t0) * 1000, "'"$IDLE"'", "'"$SLOW"'" }'
