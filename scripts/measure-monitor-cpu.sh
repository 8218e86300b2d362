#!/usr/bin/env bash
# CPU time of `gpufl monitor` at 1 Hz, scraped once a second as Prometheus would, over SECONDS (default 60):
# utime+stime from /proc/<pid>/stat before and after, as a percentage of one core.
# Usage: scripts/measure-monitor-cpu.sh PATH/TO/gpufl [SECONDS] [extra monitor args...]
#   e.g. on the H200: scripts/measure-monitor-cpu.sh build/h200/apps/gpufl/gpufl 60
#        here, with two scripted GPUs: ... 60 --nvml-script tests/fleet/two_gpus.ndjson
set -euo pipefail
GPUFL=${1:?usage: $0 PATH/TO/gpufl [SECONDS] [monitor args...]}
SECS=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
TMP=$(mktemp -d)
trap 'kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
"$GPUFL" monitor --interval 1000 --listen 127.0.0.1:0 --prefix "$TMP/mon" "$@" 2> "$TMP/err" &
PID=$!
for _ in $(seq 50); do grep -q "listening on" "$TMP/err" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)\/metrics.*/\1/p' "$TMP/err")
[ -n "$PORT" ] || { cat "$TMP/err"; exit 1; }
sleep 2  # past start-up (NVML init, first tick)
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
HZ=$(getconf CLK_TCK)
t0=$(ticks); s0=$(date +%s.%N)
for _ in $(seq "$SECS"); do
  curl -sf "http://127.0.0.1:$PORT/metrics" -o /dev/null || python3 -c \
    "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/metrics').read()"
  sleep 1
done
t1=$(ticks); s1=$(date +%s.%N)
# The sampler thread's own account by part of a tick, since start (the rest: HTTP serving, start-up).
curl -sf "http://127.0.0.1:$PORT/metrics" 2>/dev/null | grep '^gpufl_monitor_tick_cpu_seconds_total' \
  | sed 's/^gpufl_monitor_tick_cpu_seconds_total/  sampler thread CPU since start/' > "$TMP/parts" || true
kill -TERM $PID; wait $PID || true
awk -v t0="$t0" -v t1="$t1" -v s0="$s0" -v s1="$s1" -v hz="$HZ" 'BEGIN {
  cpu = (t1 - t0) / hz; wall = s1 - s0;
  printf "gpufl monitor at 1 Hz, scraped every 1 s: %.3f s CPU in %.1f s = %.3f%% of one core\n", cpu, wall, 100 * cpu / wall }'
grep -c '"type":"host_sample"' "$TMP/mon.system.log" | sed 's/^/host samples logged: /'
cat "$TMP/parts"
