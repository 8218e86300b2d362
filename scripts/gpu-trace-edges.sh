#!/usr/bin/env bash
# Edge cases of `gpufl trace` on the GPU machine: exit codes and signals passed through, Ctrl-C / kill while
# kernels run, exit without cleanup, child processes, programs without CUDA, CUPTI held by Nsight Compute,
# Numba and PyTorch under trace. One line per check: `PASS name: evidence`, `FAIL name: evidence => why` or
# `SKIP name: reason`, then a count. Exit status: the number of failures. Logs and outputs stay in OUT_DIR/<check>/.
#
# Usage: scripts/gpu-trace-edges.sh BUILD_DIR OUT_DIR
#   BUILD_DIR: a build with apps/gpufl/gpufl, libgpufl_inject.so and examples/cuda (the h200 preset).
#   GPUFL_EDGES_FORCE=1     run the GPU checks even where nvidia-smi lists no GPU (to exercise the script on a dev VM)
#   GPUFL_EDGES_BUDGET_S=N  checks that would start after N seconds are skipped (default 540)
#   PYTHON=...              the Python with torch / numba-cuda (default python3)
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && OUT=$(cd "$2" && pwd) || exit 2
GPUFL=$BUILD/apps/gpufl/gpufl
EX=$BUILD/examples/cuda
PY=${PYTHON:-python3}
FORCE=${GPUFL_EDGES_FORCE:-0}
BUDGET=${GPUFL_EDGES_BUDGET_S:-540}
export PATH=/usr/local/cuda/bin:$PATH
# simdjson unpacked from carried .deb files on the GPU machine (scripts/gpu-run.sh sets this too).
[ -d /tmp/gpufl-deps/usr/lib/x86_64-linux-gnu ] &&
  export LD_LIBRARY_PATH=/tmp/gpufl-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# Hermetic: nothing of an outer gpufl or profiler run leaks into the traced programs.
for v in $(compgen -e | grep -E '^GPUFL_|^CUDA_INJECTION64_PATH$'); do unset "$v"; done
START_S=$SECONDS

NPASS=0 NFAIL=0 NSKIP=0
RESULTS=$OUT/results.txt
: > "$RESULTS"
result() {  # result PASS|FAIL|SKIP name text
  local line="$1 $2: $3"
  echo "$line"
  echo "$line" >> "$RESULTS"
  case $1 in
    PASS) NPASS=$((NPASS + 1)) ;;
    FAIL) NFAIL=$((NFAIL + 1)) ;;
    *) NSKIP=$((NSKIP + 1)) ;;
  esac
}
verdict() {  # verdict name evidence why ("; reason; reason"): PASS when why is empty
  if [ -z "$3" ]; then result PASS "$1" "$2"; else result FAIL "$1" "$2 =>${3#;}"; fi
}

# ---------------------------------------------------------------------------------------------------------------
# Prerequisites
if [ ! -x "$GPUFL" ]; then
  result FAIL prerequisites "no $GPUFL"
  echo "SUMMARY: $NPASS pass, $NFAIL fail, $NSKIP skip (results: $RESULTS)"
  exit "$NFAIL"
fi
HAVE_GPU=0
GPU_WHY="nvidia-smi lists no GPU"
if timeout 30 nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then HAVE_GPU=1; fi
[ "$FORCE" = 1 ] && HAVE_GPU=1 && GPU_WHY=""
H=$OUT/helpers
mkdir -p "$H"

# One session of a log, summarised as shell assignments (K kernel_event, END session_end records over the
# channels, START, DEFS kernel_def, LPID session_start pid, NOTES, NAMES demangled kernel names, BAD lines).
cat > "$H/logstat.py" <<'EOF'
import collections, json, shlex, sys
c, notes, names, pid, bad = collections.Counter(), [], [], "", 0
for line in sys.stdin:
    try:
        r = json.loads(line)
    except ValueError:
        bad += 1
        continue
    t = r.get("type")
    c[t] += 1
    if t == "note":
        notes.append("%s:%s:%s" % (r.get("feature"), r.get("status"), r.get("reason")))
    elif t == "session_start" and not pid:
        pid = str(r.get("pid", ""))
    elif t == "kernel_def":
        names.append(r.get("demangled") or r.get("name", ""))
out = dict(K=c["kernel_event"], END=c["session_end"], START=c["session_start"], DEFS=c["kernel_def"], LPID=pid,
           NOTES=" | ".join(dict.fromkeys(notes)), NAMES=" | ".join(n[:70] for n in dict.fromkeys(names))[:400],
           BAD=bad)
for k, v in out.items():
    print("%s=%s" % (k, shlex.quote(str(v))))
EOF

# Runs a command as a foreground job (own session and process group, SIGINT/SIGTERM at their defaults even when
# this script runs in the background), waits until a file holds a text, sends one signal to the group, the leader
# or the leader's child, and prints how it ended as one JSON line.
cat > "$H/sigdrv.py" <<'EOF'
import argparse, json, os, signal, subprocess, time

ap = argparse.ArgumentParser()
ap.add_argument("--sig", default="INT")
ap.add_argument("--target", choices=["group", "leader", "child", "none"], default="group")
ap.add_argument("--wait-file", default="")
ap.add_argument("--wait-text", default="")
ap.add_argument("--wait-max", type=float, default=40.0)
ap.add_argument("--after", type=float, default=1.0)
ap.add_argument("--timeout", type=float, default=60.0)
ap.add_argument("--stdout", required=True)
ap.add_argument("--stderr", required=True)
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
sig = getattr(signal, "SIG" + a.sig)


def defaults():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(s, signal.SIG_DFL)


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
                if int(st[st.rindex(")") + 2:].split()[1]) == pid:
                    out.append(int(d))
            except (OSError, ValueError):
                pass
    return sorted(out)


def ready():
    if not a.wait_file:
        return True
    try:
        with open(a.wait_file, "rb") as f:
            return a.wait_text.encode() in f.read()
    except OSError:
        return False


res = {"signal": a.sig, "target": a.target}
with open(a.stdout, "wb") as so, open(a.stderr, "wb") as se:
    p = subprocess.Popen(cmd, stdout=so, stderr=se, stdin=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=defaults)
t0 = time.monotonic()
while time.monotonic() - t0 < a.wait_max and p.poll() is None and not ready():
    time.sleep(0.1)
res["ready"] = ready()
res["ready_after_s"] = round(time.monotonic() - t0, 2)
if p.poll() is None:
    time.sleep(a.after)
kids = children(p.pid)
res["child"] = kids[0] if kids else None
res["exited_before_signal"] = p.poll() is not None
if not res["exited_before_signal"] and a.target != "none":
    try:
        if a.target == "group":
            os.killpg(p.pid, sig)
        elif a.target == "leader":
            os.kill(p.pid, sig)
        elif kids:
            os.kill(kids[0], sig)
        else:
            res["no_child_to_signal"] = True
    except ProcessLookupError:
        res["exited_before_signal"] = True
t1 = time.monotonic()
try:
    p.wait(timeout=a.timeout)
    res["hung"] = False
except subprocess.TimeoutExpired:
    res["hung"] = True
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
res["exit_s"] = round(time.monotonic() - t1, 2)
rc = p.returncode
res["killed_by"] = -rc if rc < 0 else 0  # the leader itself died of this signal
res["rc"] = 128 - rc if rc < 0 else rc  # as a shell reports it
print(json.dumps(res))
EOF
jget() { "$PY" -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print("" if v is None else v)' "$1" "$2" 2>/dev/null; }

# A CUDA program that ends in the ways the tracer must pass through (no gpufl calls).
cat > "$H/edge_prog.cu" <<'EOF'
// edge_prog exit N | _exit N | abort | kill9 | handler | spawn PROGRAM ARGS...
// Launches 100 tiny kernels, then ends as asked. `handler` installs SIGINT/SIGTERM handlers before CUDA starts and
// launches kernels until a signal arrives (120 s at most), then frees and returns 0, printing how many signals came.
// `spawn` runs PROGRAM as a child process (fork + exec), waits, launches 100 more kernels, returns the child's status.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

__global__ void bump(float* x) { x[threadIdx.x] += 1.0f; }

static float* g_buf = nullptr;
static volatile sig_atomic_t g_signals = 0, g_last = 0;
static void onSignal(int s) { g_signals = g_signals + 1; g_last = s; }

static void work(int n) {
  cudaError_t e = cudaSuccess;
  if (!g_buf) e = cudaMalloc(&g_buf, 32 * sizeof(float));
  for (int i = 0; e == cudaSuccess && i < n; ++i) bump<<<1, 32>>>(g_buf);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "edge_prog: CUDA error: %s\n", cudaGetErrorString(e));
    std::exit(90);
  }
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: edge_prog exit N | _exit N | abort | kill9 | handler | spawn PROGRAM ARGS...\n");
    return 2;
  }
  const char* mode = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : 0;
  if (!std::strcmp(mode, "handler")) {
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
  }
  work(100);
  std::printf("edge_prog %s: 100 kernels done\n", mode);
  std::fflush(stdout);
  if (!std::strcmp(mode, "exit")) std::exit(n);
  if (!std::strcmp(mode, "_exit")) _exit(n);
  if (!std::strcmp(mode, "abort") || !std::strcmp(mode, "kill9")) {
    std::this_thread::sleep_for(std::chrono::seconds(3));  // CUPTI: buffers every 0.5 s; writer: flush ~1 s
    if (!std::strcmp(mode, "abort")) std::abort();
    raise(SIGKILL);
  }
  if (!std::strcmp(mode, "handler")) {
    auto t0 = std::chrono::steady_clock::now();
    while (g_signals == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120)) work(100);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a second copy of the signal would land here
    std::printf("edge_prog handler: %d signal(s), last %d; cleaning up\n", int(g_signals), int(g_last));
    cudaFree(g_buf);
    return 0;
  }
  if (!std::strcmp(mode, "spawn") && argc > 2) {
    pid_t pid = fork();
    if (pid == 0) {
      execv(argv[2], argv + 2);
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    work(100);
    std::printf("edge_prog spawn: child %d ended with %d\n", int(pid), status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  std::fprintf(stderr, "edge_prog: unknown mode %s\n", mode);
  return 2;
}
EOF
EDGE=$H/edge_prog
EDGE_WHY=""
if ! command -v nvcc >/dev/null; then
  EDGE_WHY="no nvcc to build edge_prog"
elif ! timeout 180 nvcc -O2 -std=c++17 -gencode arch=compute_90,code='[sm_90,compute_90]' -o "$EDGE" \
    "$H/edge_prog.cu" > "$H/edge_prog.build.txt" 2>&1; then
  EDGE_WHY="nvcc failed (helpers/edge_prog.build.txt): $(tail -1 "$H/edge_prog.build.txt")"
fi

# A counter of SIGINTs (plain C, no CUDA): how many copies of one Ctrl-C the traced program receives.
cat > "$H/sigcount.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static volatile sig_atomic_t n = 0;
static void h(int s) { (void)s; n = n + 1; }
int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = h;
  sigaction(SIGINT, &sa, 0);
  printf("ready\n");
  fflush(stdout);
  for (int i = 0; i < 30; i++) usleep(100000);
  printf("sigint_count %d\n", (int)n);
  return 0;
}
EOF
SIGCOUNT=$H/sigcount
CC_BIN=$(command -v cc || command -v gcc || true)
SIGCOUNT_WHY=""
if [ -z "$CC_BIN" ]; then
  SIGCOUNT_WHY="no C compiler"
elif ! timeout 60 "$CC_BIN" -O2 -o "$SIGCOUNT" "$H/sigcount.c" > "$H/sigcount.build.txt" 2>&1; then
  SIGCOUNT_WHY="cc failed: $(tail -1 "$H/sigcount.build.txt")"
fi

# probe NAME CODE: empty when CODE runs (exit 0) in $PY, else its last line of output.
probe() {
  local out
  out=$(timeout 120 "$PY" -c "$2" 2>&1) && return
  out=${out##*$'\n'}
  echo "${out:-$1 probe failed without output}" | cut -c1-200
}
TORCH_WHY="no GPU"
NUMBA_WHY="no GPU"
NUMBA_PRELUDE="import numpy as np; np.row_stack = getattr(np, 'row_stack', np.vstack)"
if [ "$HAVE_GPU" = 1 ]; then
  TORCH_WHY=$(probe torch "import torch; assert torch.cuda.is_available(), 'torch.cuda.is_available() is False'")
  NUMBA_WHY=$(probe numba "$NUMBA_PRELUDE
from numba import cuda
assert cuda.is_available(), 'numba: cuda.is_available() is False'")
fi
HAVE_NCU=0
command -v ncu >/dev/null && HAVE_NCU=1

{
  echo "gpufl: $GPUFL"
  echo "examples: $EX"
  echo "python: $(command -v "$PY") $("$PY" --version 2>&1)"
  echo "gpu: $HAVE_GPU (force=$FORCE)"
  echo "edge_prog: ${EDGE_WHY:-built}"
  echo "sigcount: ${SIGCOUNT_WHY:-built}"
  echo "torch: ${TORCH_WHY:-ok}"
  echo "numba: ${NUMBA_WHY:-ok}"
  echo "ncu: $(command -v ncu || echo none)"
} > "$OUT/prerequisites.txt"
sed 's/^/# /' "$OUT/prerequisites.txt"

# ---------------------------------------------------------------------------------------------------------------
# Helpers for the checks

# budget NAME: false (and a SKIP) when the time budget is spent.
budget() {
  if [ $((SECONDS - START_S)) -ge "$BUDGET" ]; then
    result SKIP "$1" "time budget of ${BUDGET}s spent"
    return 1
  fi
}
need_gpu() { budget "$1" || return 1; [ "$HAVE_GPU" = 1 ] || { result SKIP "$1" "$GPU_WHY"; return 1; }; }
need_file() {  # need_file NAME PATH...
  local name=$1 f
  shift
  for f in "$@"; do [ -x "$f" ] || { result SKIP "$name" "missing $f"; return 1; }; done
}
need_edge() { [ -z "$EDGE_WHY" ] || { result SKIP "$1" "$EDGE_WHY"; return 1; }; }
need_torch() { [ -z "$TORCH_WHY" ] || { result SKIP "$1" "torch unusable: $TORCH_WHY"; return 1; }; }

# fresh NAME: an empty directory OUT/NAME; sets D and P (the log prefix D/t).
fresh() {
  D=$OUT/$1
  rm -rf "$D"
  mkdir -p "$D"
  P=$D/t
}

# trace SECS [trace options] -- CMD...: `gpufl trace -o $P` in $D with a timeout; stdout/stderr in $D; sets RC.
trace() {
  local secs=$1
  shift
  (cd "$D" && timeout -k 10 "$secs" "$GPUFL" trace -o "$P" "$@" < /dev/null > "$D/stdout.txt" 2> "$D/stderr.txt")
  RC=$?
}

# logstat PREFIX: `gpufl cat PREFIX` into PREFIX.cat.ndjson, then K END START DEFS LPID NOTES NAMES BAD.
# shellcheck disable=SC2034  # START DEFS CATRC: kept for whoever extends a check
logstat() {
  K=0 END=0 START=0 DEFS=0 LPID="" NOTES="" NAMES="" BAD=0
  # --by-channel: each channel keeps its own session_start/session_end, so END counts channels (of 3).
  timeout 60 "$GPUFL" cat --by-channel "$1" > "$1.cat.ndjson" 2> "$1.cat.err"
  CATRC=$?
  eval "$("$PY" "$H/logstat.py" < "$1.cat.ndjson")"
}
stats() { echo "kernel_event=$K session_end=$END/3 channels$([ "$BAD" = 0 ] || echo " unreadable_lines=$BAD")"; }

# expect_rc WANT: appends to $why when RC differs (124/137 from timeout say so).
expect_rc() {
  if [ "$RC" = 124 ] || { [ "$RC" = 137 ] && [ "$1" != 137 ]; }; then
    why+="; timed out (rc $RC)"
  elif [ "$RC" != "$1" ]; then
    why+="; exit status $RC, want $1"
  fi
}
summary_says_status() {  # the trace summary reports the program's status
  grep -q "program exited with status $1" "$D/stderr.txt" || why+="; summary does not say 'status $1'"
}

# ---------------------------------------------------------------------------------------------------------------
# 1. Exit codes and deaths by signal pass through.

check_exit_plain() {
  budget exit_code_plain || return
  fresh exit_code_plain
  trace 30 -- bash -c 'echo out-line; echo err-line >&2; exit 7'
  local why=""
  expect_rc 7
  grep -qx out-line "$D/stdout.txt" || why+="; program stdout missing"
  grep -qx err-line "$D/stderr.txt" || why+="; program stderr missing"
  summary_says_status 7
  verdict exit_code_plain "bash exit 7 -> gpufl trace rc $RC" "$why"
}

check_exit_signal_plain() {
  budget exit_signal_plain || return
  fresh exit_signal_plain
  trace 30 -- bash -c 'ulimit -c 0; kill -SEGV $$'
  local why=""
  expect_rc 139
  summary_says_status 139
  verdict exit_signal_plain "bash killed by SIGSEGV -> rc $RC (128+11 wanted)" "$why"
}

check_exit_cuda() {
  need_gpu exit_code_cuda && need_edge exit_code_cuda || return
  fresh exit_code_cuda
  trace 60 -- "$EDGE" exit 5
  logstat "$P"
  local why=""
  expect_rc 5
  [ "$END" -ge 1 ] || why+="; no session_end"
  [ "$K" -ge 100 ] || why+="; $K kernel_event, want >= 100"
  summary_says_status 5
  verdict exit_code_cuda "edge_prog exit(5) after 100 kernels -> rc $RC, $(stats)" "$why"
}

check_exit_underscore_cuda() {
  need_gpu exit_underscore_cuda && need_edge exit_underscore_cuda || return
  fresh exit_underscore_cuda
  trace 60 -- "$EDGE" _exit 4
  logstat "$P"
  local why=""
  expect_rc 4
  verdict exit_underscore_cuda "edge_prog _exit(4) -> rc $RC, $(stats) (end record may be lost: _exit skips atexit)" \
    "$why"
}

check_exit_abort_cuda() {
  need_gpu exit_abort_cuda && need_edge exit_abort_cuda || return
  fresh exit_abort_cuda
  trace 60 -- bash -c "ulimit -c 0; exec '$EDGE' abort"
  logstat "$P"
  local why=""
  expect_rc 134
  summary_says_status 134
  [ "$K" -ge 1 ] || why+="; no kernel_event kept (the program lived 3 s after its kernels)"
  verdict exit_abort_cuda "edge_prog abort() -> rc $RC, $(stats) (end record may be lost)" "$why"
}

check_exit_kill9_cuda() {
  need_gpu exit_kill9_cuda && need_edge exit_kill9_cuda || return
  fresh exit_kill9_cuda
  trace 60 -- "$EDGE" kill9
  logstat "$P"
  local why=""
  expect_rc 137
  summary_says_status 137
  [ "$K" -ge 1 ] || why+="; no kernel_event kept (the program lived 3 s after its kernels)"
  verdict exit_kill9_cuda "edge_prog raise(SIGKILL) -> rc $RC, $(stats) (end record lost by nature)" "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# 2. SIGINT / SIGTERM while kernels run.

# sigrun NAME SIG TARGET WAIT_MAX CMD...: runs `gpufl trace -o P -- CMD` under sigdrv, signals TARGET (group,
# leader = gpufl, child = the program) 1.5 s after the device log shows kernel events (at most WAIT_MAX s);
# sets J (sigdrv's JSON), RC, K, END.
sigrun() {
  local name=$1 sig=$2 target=$3 wait_max=$4
  shift 4
  fresh "$name"
  J=$(cd "$D" && timeout -k 10 200 "$PY" "$H/sigdrv.py" --sig "$sig" --target "$target" \
    --wait-file "$P.device.log" --wait-text kernel_event --wait-max "$wait_max" --after 1.5 --timeout 60 \
    --stdout "$D/stdout.txt" --stderr "$D/stderr.txt" -- "$GPUFL" trace -o "$P" -- "$@")
  echo "$J" > "$D/sigdrv.json"
  RC=$(jget "$J" rc)
  RC=${RC:-124}
  logstat "$P"
}
sig_verdict() {  # sig_verdict NAME WANT_RC EXTRA_WHY [EXTRA_EVIDENCE]
  local name=$1 want=$2 why=$3 extra=${4:-}
  [ "$(jget "$J" ready)" = True ] || why+="; no kernel_event in the log before the signal"
  [ "$(jget "$J" exited_before_signal)" = False ] || why+="; program ended before the signal"
  [ "$(jget "$J" hung)" = False ] || why+="; hung: still running 60 s after the signal"
  [ "$RC" = "$want" ] || why+="; exit status $RC, want $want"
  [ "$END" -ge 1 ] || why+="; no session_end"
  [ "$K" -ge 1 ] || why+="; no kernel_event"
  verdict "$name" "rc $RC, exited $(jget "$J" exit_s)s after the signal, $(stats)$extra" "$why"
}

check_sig_tiny() {  # check_sig_tiny NAME SIG TARGET
  local name=$1 sig=$2 target=$3 num
  need_gpu "$name" && need_file "$name" "$EX/tiny_kernels" || return
  num=$(kill -l "$sig")
  sigrun "$name" "$sig" "$target" 40 "$EX/tiny_kernels" 100000000
  sig_verdict "$name" $((128 + num)) ""
}

# The program's own SIGINT/SIGTERM handler (installed before CUDA starts) must run, and the log end normally.
check_sig_handler() {
  need_gpu sig_int_own_handler && need_edge sig_int_own_handler || return
  sigrun sig_int_own_handler INT group 40 "$EDGE" handler
  local why=""
  grep -q "edge_prog handler: .* signal(s), last 2; cleaning up" "$D/stdout.txt" ||
    why+="; the program's handler did not run to its clean exit"
  local n
  n=$(sed -n 's/.*handler: \([0-9]*\) signal(s).*/\1/p' "$D/stdout.txt")
  sig_verdict sig_int_own_handler 0 "$why" ", the program's handler saw ${n:-?} SIGINT(s)"
}

# Ctrl-C on a Python program: KeyboardInterrupt path (Python's own handler), the log must still end.
check_sig_python() {
  need_gpu sig_int_python_torch && need_torch sig_int_python_torch || return
  # In the helpers folder: sigrun starts from a fresh (emptied) check folder.
  cat > "$H/torch_sigint_loop.py" <<'EOF'
import time, torch
x = torch.ones(4096, device="cuda")
t0 = time.time()
while time.time() - t0 < 120:
    x = x * 1.0000001 + 0.0
    torch.cuda.synchronize()
EOF
  sigrun sig_int_python_torch INT group 120 "$PY" "$H/torch_sigint_loop.py"
  local why=""
  grep -q KeyboardInterrupt "$D/stderr.txt" || why+="; no KeyboardInterrupt traceback"
  sig_verdict sig_int_python_torch 130 "$why"
}

# One Ctrl-C (SIGINT to the foreground process group) must reach the program once, as without gpufl.
check_sig_once() {
  budget sig_int_delivered_once || return
  [ -z "$SIGCOUNT_WHY" ] || { result SKIP sig_int_delivered_once "$SIGCOUNT_WHY"; return; }
  fresh sig_int_delivered_once
  J=$(cd "$D" && timeout -k 10 60 "$PY" "$H/sigdrv.py" --sig INT --target group --wait-file "$D/stdout.txt" \
    --wait-text ready --wait-max 10 --after 0.5 --timeout 20 --stdout "$D/stdout.txt" --stderr "$D/stderr.txt" \
    -- "$GPUFL" trace -q -o "$P" -- "$SIGCOUNT")
  echo "$J" > "$D/sigdrv.json"
  local n why=""
  n=$(sed -n 's/^sigint_count //p' "$D/stdout.txt")
  [ "$n" = 1 ] || why+="; the program received ${n:-?} SIGINTs for one Ctrl-C (gpufl trace forwards a SIGINT the
 program already got from the process group)"
  verdict sig_int_delivered_once "one SIGINT to the process group -> program counted ${n:-?}" "${why//$'\n'/}"
}

# Ctrl-C must stop a shell script that runs `gpufl trace` (bash continues when its child exited normally).
check_sig_shell() {
  budget sig_int_stops_shell_script || return
  fresh sig_int_stops_shell_script
  J=$(cd "$D" && timeout -k 10 60 "$PY" "$H/sigdrv.py" --sig INT --target group --after 1.0 --timeout 30 \
    --stdout "$D/stdout.txt" --stderr "$D/stderr.txt" -- \
    bash -c "'$GPUFL' trace -q -o '$P' -- sleep 20; echo AFTER-TRACE rc=\$?")
  echo "$J" > "$D/sigdrv.json"
  local why=""
  if grep -q AFTER-TRACE "$D/stdout.txt"; then
    why+="; the script went on after Ctrl-C ($(cat "$D/stdout.txt")): gpufl exits 128+SIGINT instead of dying of
 SIGINT, so bash assumes the program handled it"
  fi
  verdict sig_int_stops_shell_script "bash -c 'gpufl trace -- sleep 20; echo AFTER-TRACE' + Ctrl-C -> script rc \
$(jget "$J" rc)" "${why//$'\n'/}"
}

# ---------------------------------------------------------------------------------------------------------------
# 3. Exit without cleanup.

check_sys_exit_torch() {
  need_gpu exit_sys_exit_torch && need_torch exit_sys_exit_torch || return
  fresh exit_sys_exit_torch
  trace 180 -- "$PY" -c "import sys, torch
x = torch.ones(1 << 20, device='cuda'); y = (x * 2).sum(); torch.cuda.synchronize(); print('sum', y.item())
sys.exit(3)"
  logstat "$P"
  local why=""
  expect_rc 3
  [ "$END" -ge 1 ] || why+="; no session_end"
  [ "$K" -ge 1 ] || why+="; no kernel_event"
  summary_says_status 3
  verdict exit_sys_exit_torch "torch work then sys.exit(3) -> rc $RC, $(stats)" "$why"
}

check_os_exit_torch() {
  need_gpu exit_os_exit_torch && need_torch exit_os_exit_torch || return
  fresh exit_os_exit_torch
  trace 180 -- "$PY" -c "import os, torch
x = torch.ones(1 << 20, device='cuda'); y = (x * 2).sum(); torch.cuda.synchronize(); print('sum', y.item())
os._exit(0)"
  logstat "$P"
  local why=""
  expect_rc 0
  verdict exit_os_exit_torch "torch work then os._exit(0) -> rc $RC, $(stats) (losing the end record is allowed)" \
    "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# 4. Child processes: one log per CUDA process, <prefix>.<pid> for all but the traced program itself.

# child_logs: checks every $P.<pid>.device.log (pid matches session_start, kernels, end); sets NCHILD, CEV, why.
child_logs() {
  NCHILD=0
  CEV=""
  local f cp
  for f in "$P".*.device.log; do
    [ -e "$f" ] || continue
    cp=${f#"$P".}
    cp=${cp%.device.log}
    [[ $cp =~ ^[0-9]+$ ]] || continue
    NCHILD=$((NCHILD + 1))
    logstat "$P.$cp"
    CEV+=" t.$cp: pid $LPID, $K kernels, end x$END;"
    [ "$LPID" = "$cp" ] || why+="; t.$cp: session_start pid $LPID"
    [ "$K" -ge 1 ] || why+="; t.$cp: no kernel_event"
    [ "$END" -ge 1 ] || why+="; t.$cp: no session_end"
    grep -q "logs: $P.$cp\.{device" "$D/stderr.txt" || why+="; summary does not list t.$cp"
  done
}

check_children() {  # check_children NAME SCRIPT: bash -c SCRIPT must leave two child logs and none of its own
  local name=$1 script=$2
  need_gpu "$name" && need_file "$name" "$EX/kernel_zoo" || return
  fresh "$name"
  trace 120 -- bash -c "$script"
  local why=""
  expect_rc 0
  [ ! -e "$P.device.log" ] || why+="; a log under the bare prefix (bash itself never used CUDA)"
  child_logs
  [ "$NCHILD" = 2 ] || why+="; $NCHILD child logs, want 2"
  verdict "$name" "rc $RC,$CEV" "$why"
}

check_parent_and_child() {
  need_gpu children_parent_and_child && need_edge children_parent_and_child &&
    need_file children_parent_and_child "$EX/kernel_zoo" || return
  fresh children_parent_and_child
  trace 120 -- "$EDGE" spawn "$EX/kernel_zoo" 2
  local why="" pev
  expect_rc 0
  logstat "$P"
  pev="t: pid $LPID, $K kernels, end x$END;"
  [ "$K" -ge 200 ] || why+="; parent log: $K kernel_event, want >= 200"
  [ "$END" -ge 1 ] || why+="; parent log: no session_end"
  grep -q "logs: $P\.{device" "$D/stderr.txt" || why+="; summary does not list t"
  child_logs
  [ "$NCHILD" = 1 ] || why+="; $NCHILD child logs, want 1"
  verdict children_parent_and_child "rc $RC, $pev$CEV" "$why"
}

# A relative -o is relative to where gpufl trace ran, even when the program changes directory before CUDA starts.
check_relative_prefix() {
  need_gpu prefix_relative_after_chdir && need_file prefix_relative_after_chdir "$EX/kernel_zoo" || return
  fresh prefix_relative_after_chdir
  mkdir -p "$D/elsewhere"
  (cd "$D" && timeout -k 10 120 "$GPUFL" trace -o rel -- bash -c "cd elsewhere && exec '$EX/kernel_zoo' 2" \
    < /dev/null > "$D/stdout.txt" 2> "$D/stderr.txt")
  RC=$?
  local why=""
  expect_rc 0
  [ -e "$D/rel.device.log" ] || why+="; no rel.device.log where gpufl trace ran$([ -e "$D/elsewhere/rel.device.log" ] &&
    echo " (it went to elsewhere/: GPUFL_LOG_PATH is passed relative)")"
  grep -q "never initialised CUDA" "$D/stderr.txt" && why+="; the summary says no log was written"
  verdict prefix_relative_after_chdir "-o rel, program cd's first -> rc $RC, logs: $(cd "$D" && ls -- *.device.log \
    elsewhere/*.device.log 2>/dev/null | tr '\n' ' ')" "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# 5. Programs without CUDA.

NO_CUDA_TEXT="never initialised CUDA"
check_no_cuda_true() {
  budget no_cuda_true || return
  fresh no_cuda_true
  trace 30 -- /bin/true
  local why=""
  expect_rc 0
  [ ! -s "$D/stdout.txt" ] || why+="; stdout not empty: $(head -c 200 "$D/stdout.txt")"
  grep -q "$NO_CUDA_TEXT" "$D/stderr.txt" || why+="; summary does not say '$NO_CUDA_TEXT'"
  ! ls "$D"/t*.log > /dev/null 2>&1 || why+="; log files written: $(ls "$D")"
  verdict no_cuda_true "rc $RC; $(grep -m1 "no log" "$D/stderr.txt")" "$why"
}

check_no_cuda_python() {
  budget no_cuda_python || return
  fresh no_cuda_python
  trace 60 -- "$PY" -c 'print(1)'
  local why=""
  expect_rc 0
  [ "$(cat "$D/stdout.txt")" = 1 ] || why+="; stdout is '$(head -c 200 "$D/stdout.txt")', want the program's '1' only"
  grep -q "$NO_CUDA_TEXT" "$D/stderr.txt" || why+="; summary does not say '$NO_CUDA_TEXT'"
  verdict no_cuda_python "rc $RC, stdout '$(head -c 50 "$D/stdout.txt")'" "$why"
}

check_no_cuda_quiet() {
  budget no_cuda_quiet || return
  fresh no_cuda_quiet
  trace 30 -q -- bash -c 'echo quiet-out; exit 3'
  local why=""
  expect_rc 3
  [ ! -s "$D/stderr.txt" ] || why+="; -q still printed: $(head -c 200 "$D/stderr.txt")"
  grep -qx quiet-out "$D/stdout.txt" || why+="; program stdout missing"
  verdict no_cuda_quiet "-q: rc $RC, stderr $(wc -c < "$D/stderr.txt") bytes" "$why"
}

check_no_cuda_missing() {
  budget no_cuda_missing_program || return
  fresh no_cuda_missing_program
  trace 30 -- "$D/no-such-program" arg
  local why=""
  expect_rc 127
  grep -q "cannot run" "$D/stderr.txt" || why+="; no 'cannot run' message"
  verdict no_cuda_missing_program "rc $RC; $(grep -m1 "cannot run" "$D/stderr.txt")" "$why"
}

check_no_cuda_stdin() {
  budget no_cuda_stdin || return
  fresh no_cuda_stdin
  printf 'line-1\nline-2\n' | (cd "$D" && timeout -k 10 30 "$GPUFL" trace -q -o "$P" -- cat > "$D/stdout.txt" \
    2> "$D/stderr.txt")
  RC=$?
  local why=""
  expect_rc 0
  [ "$(cat "$D/stdout.txt")" = $'line-1\nline-2' ] || why+="; stdin did not reach the program"
  verdict no_cuda_stdin "printf ... | gpufl trace -- cat -> rc $RC, $(wc -l < "$D/stdout.txt") lines" "$why"
}

# Logs left under the same prefix by an earlier run are not this run's: a run without CUDA must say so.
check_no_cuda_stale() {
  budget no_cuda_stale_logs || return
  fresh no_cuda_stale_logs
  local src=$ROOT/tests/data/h200/kernel_zoo_trace c
  for c in device scope system; do
    [ -f "$src.$c.log" ] && cp "$src.$c.log" "$P.$c.log" && cp "$src.$c.log" "$P.424242.$c.log"
  done
  touch -d '2 hours ago' "$P".*
  trace 30 -- /bin/true
  local why=""
  expect_rc 0
  grep -q "$NO_CUDA_TEXT" "$D/stderr.txt" || why+="; summary does not say '$NO_CUDA_TEXT'"
  grep -q "logs: " "$D/stderr.txt" && why+="; summary lists logs of an earlier run: $(grep "logs: " "$D/stderr.txt" |
    sed "s|$D/||g" | tr '\n' ' ')"
  verdict no_cuda_stale_logs "/bin/true with t.* and t.424242.* from an earlier run present -> rc $RC" "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# 6. CUPTI held by Nsight Compute: a program that links gpufl runs on, says once why it does not trace.

check_ncu() {
  local skip=""
  if [ $((SECONDS - START_S)) -ge "$BUDGET" ]; then skip="time budget of ${BUDGET}s spent"
  elif [ "$HAVE_GPU" != 1 ]; then skip=$GPU_WHY
  elif [ ! -x "$EX/memory_coalescing_demo" ]; then skip="missing $EX/memory_coalescing_demo"
  elif [ "$HAVE_NCU" != 1 ]; then skip="no ncu in PATH"
  fi
  if [ -n "$skip" ]; then
    result SKIP ncu_program_completes "$skip"
    result SKIP ncu_reason_once_on_stderr "$skip"
    return
  fi
  fresh ncu
  (cd "$D" && timeout -k 10 300 ncu --metrics gpu__time_duration.sum "$EX/memory_coalescing_demo" \
    < /dev/null > "$D/stdout.txt" 2> "$D/stderr.txt")
  RC=$?
  local why="" log note="" status="" reason="" n
  expect_rc 0
  log=$(ls "$D"/memory_coalescing*.device.log 2>/dev/null | head -1)
  if [ -z "$log" ]; then
    why+="; no memory_coalescing*.device.log in $D"
  else
    logstat "${log%.device.log}"
    note=$("$PY" -c 'import json, sys
n = [r for r in map(json.loads, open(sys.argv[1])) if r.get("type") == "note" and r.get("feature") == "cupti_activity"]
print("%s\t%s" % (n[-1].get("status"), n[-1].get("reason")) if n else "")' "${log%.device.log}.cat.ndjson" 2>/dev/null)
    status=${note%%$'\t'*}
    reason=${note#*$'\t'}
    [ "$status" = off ] || why+="; no cupti_activity off note (notes: $NOTES)"
    [ "$END" -ge 1 ] || why+="; no session_end"
  fi
  grep -q "==PROF==\|gpu__time_duration" "$D/stdout.txt" || why+="; ncu did not profile (see stdout.txt)"
  verdict ncu_program_completes "ncu ... memory_coalescing_demo -> rc $RC; cupti_activity note: ${status:-none}: \
${reason:-}" "$why"
  # The reason, once, on stderr (ncu passes the program's stderr through): lines holding the note's reason, or when
  # none does, gpufl lines that name CUPTI, tracing or another tool.
  why=""
  n=0
  [ -n "$reason" ] && n=$(grep -cF -- "$reason" "$D/stderr.txt")
  [ "$n" = 0 ] && n=$(grep -ciE '^gpufl.*(cupti|trac|tool)' "$D/stderr.txt")
  [ "$n" = 1 ] || why+="; printed $n times on stderr, want once (gpufl lines on stderr: $(grep -c '^gpufl' "$D/stderr.txt"))"
  verdict ncu_reason_once_on_stderr "reason on stderr x$n: $(grep -m1 -iE '^gpufl.*(cupti|trac|tool)' "$D/stderr.txt")" \
    "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# 7. Numba under trace (no gpufl import in the program).

check_numba() {
  need_gpu numba_trace || return
  [ -z "$NUMBA_WHY" ] || { result SKIP numba_trace "numba-cuda unusable: $NUMBA_WHY"; return; }
  fresh numba_trace
  cat > "$D/numba_kernels.py" <<EOF
$NUMBA_PRELUDE
from numba import cuda

@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1.0

@cuda.jit
def scale(a, f):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= f

d = cuda.to_device(np.zeros(1 << 20, dtype=np.float32))
blocks = (d.size + 255) // 256
for _ in range(5):
    add_one[blocks, 256](d)
    scale[blocks, 256](d, 0.5)
cuda.synchronize()
print("numba ok", d.copy_to_host()[:2])
EOF
  trace 240 -- "$PY" "$D/numba_kernels.py"
  logstat "$P"
  timeout 60 "$GPUFL" report "$P" > "$D/report.txt" 2>&1
  local why="" k
  expect_rc 0
  [ "$K" -ge 10 ] || why+="; $K kernel_event, want >= 10"
  [ "$END" -ge 1 ] || why+="; no session_end"
  for k in add_one scale; do
    grep -q "__main__::$k\b" "$D/report.txt" || why+="; report has no __main__::$k"
  done
  verdict numba_trace "rc $RC, $(stats), report names: $(grep -o '__main__::[A-Za-z_0-9]*' "$D/report.txt" |
    sort -u | tr '\n' ' ')" "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# 8. PyTorch under trace.

check_torch() {
  need_gpu torch_trace && need_torch torch_trace || return
  fresh torch_trace
  trace 180 -- "$PY" -c "import torch
a = torch.randn(512, 512, device='cuda'); b = a @ a; c = torch.relu(b).sum(); torch.cuda.synchronize()
print('torch ok', c.item() > 0)"
  logstat "$P"
  timeout 60 "$GPUFL" report "$P" > "$D/report.txt" 2>&1
  local rrc=$? why=""
  expect_rc 0
  [ "$K" -ge 3 ] || why+="; $K kernel_event, want >= 3"
  [ "$END" -ge 1 ] || why+="; no session_end"
  grep -q "torch ok True" "$D/stdout.txt" || why+="; program output missing"
  [ "$rrc" = 0 ] || why+="; gpufl report rc $rrc"
  verdict torch_trace "rc $RC, $(stats), kernels: ${NAMES:0:160}" "$why"
}

# ---------------------------------------------------------------------------------------------------------------
# Run. The cheap checks first, so a time budget cut falls on the slow ones.

check_exit_plain
check_exit_signal_plain
check_no_cuda_true
check_no_cuda_python
check_no_cuda_quiet
check_no_cuda_missing
check_no_cuda_stdin
check_no_cuda_stale
check_sig_once
check_sig_shell

check_exit_cuda
check_exit_underscore_cuda
check_exit_abort_cuda
check_exit_kill9_cuda

check_sig_tiny sig_int_group INT group      # Ctrl-C: the whole foreground process group
check_sig_tiny sig_term_group TERM group    # a scheduler stopping the job's process group
check_sig_tiny sig_term_gpufl TERM leader   # kill <gpufl pid>: forwarded to the program
check_sig_tiny sig_int_program INT child    # kill -INT <program pid>
check_sig_tiny sig_term_program TERM child  # kill <program pid>
check_sig_handler
check_sig_python

check_sys_exit_torch
check_os_exit_torch

check_children children_sequential "'$EX/kernel_zoo' 2; '$EX/kernel_zoo' 2; true"
check_children children_concurrent "'$EX/kernel_zoo' 3 & '$EX/kernel_zoo' 3 & wait"
check_parent_and_child
check_relative_prefix

check_ncu
check_numba
check_torch

echo "SUMMARY: $NPASS pass, $NFAIL fail, $NSKIP skip in $((SECONDS - START_S)) s (results: $RESULTS)" |
  tee -a "$RESULTS"
exit $((NFAIL > 255 ? 255 : NFAIL))
