#!/bin/sh
# `gpufl trace` with a CPU-only program (/bin/sh): signals reach the program once and its exit status comes
# back; a program that cannot run exits 126 or 127 as in a shell. Usage: trace_signals_test.sh GPUFL
# Runs without a terminal (as in CI); trace_process.hpp describes the behaviour checked.
set -u
GPUFL=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Waits (up to 10 s) for a file the program writes once its traps are set.
await() {
  i=0
  while [ ! -e "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
  [ -e "$1" ] || fail "the program never wrote $1"
}

# The program: counts SIGUSR1, SIGINT and SIGTERM into files until $DIR/stop appears, then exits with status 7.
# Its sleeps run in the background (wait is interrupted by a trapped signal; background commands of a
# non-interactive shell ignore SIGINT, so only the shell itself counts).
cat >"$DIR/counter.sh" <<'SH'
d=$1
trap 'echo x >>"$d/usr1"' USR1
trap 'echo x >>"$d/int"' INT
trap 'echo x >>"$d/term"' TERM
: >"$d/ready"
i=0
while [ ! -e "$d/stop" ] && [ $i -lt 400 ]; do sleep 0.05 & wait $!; i=$((i + 1)); done
exit 7
SH
count() { if [ -e "$DIR/$1" ]; then wc -l <"$DIR/$1" | tr -d ' '; else echo 0; fi; }
reset() { rm -f "$DIR/ready" "$DIR/stop" "$DIR/usr1" "$DIR/int" "$DIR/term"; }

# 1. SIGUSR1 (once not forwarded, it killed gpufl and orphaned the program): passed on, status kept.
reset
"$GPUFL" trace -q -o "$DIR/log" -- sh "$DIR/counter.sh" "$DIR" &
pid=$!
await "$DIR/ready"
kill -USR1 $pid
await "$DIR/usr1"
sleep 0.3  # time for a second delivery, if there were one
: >"$DIR/stop"
wait $pid
status=$?
[ $status -eq 7 ] || fail "after SIGUSR1 gpufl exited $status, not the program's 7"
[ "$(count usr1)" = 1 ] || fail "the program saw SIGUSR1 $(count usr1) times, not once"

# 2. SIGINT and SIGTERM to gpufl's whole process group (kill -SIG -PGID, as a CI runner or a job's
#    Ctrl-C does): the program counts each once. setsid makes gpufl lead a group of its own; env restores
#    SIGINT, which sh ignores in what it starts with & (gpufl would rightly leave it ignored).
reset
env --default-signal=INT setsid "$GPUFL" trace -q -o "$DIR/log" -- sh "$DIR/counter.sh" "$DIR" &
pid=$!
await "$DIR/ready"
kill -INT -$pid
await "$DIR/int"
kill -TERM -$pid
await "$DIR/term"
sleep 0.3
: >"$DIR/stop"
wait $pid
status=$?
[ $status -eq 7 ] || fail "after group signals gpufl exited $status, not the program's 7"
[ "$(count int)" = 1 ] || fail "a group SIGINT reached the program $(count int) times, not once"
[ "$(count term)" = 1 ] || fail "a group SIGTERM reached the program $(count term) times, not once"

# 3. A program killed by a forwarded signal: gpufl reports it as a shell would (128 + signal) and dies of
#    the same interrupt, so the calling shell sees a signal death.
sh -c "\"$GPUFL\" trace -q -o \"$DIR/log\" -- sh -c 'kill -TERM \$\$; sleep 5'"
status=$?
[ $status -eq 143 ] || fail "a program dead of SIGTERM gave status $status, not 143"

# 3b. A program that dies by a crash signal (abort, SIGKILL): gpufl dies by the same signal, so a parent that
#     waits for it (Python's subprocess, a supervisor) sees what it would see without gpufl.
for sig in ABRT KILL SEGV; do
  got=$(python3 -c 'import subprocess, sys; print(subprocess.run(sys.argv[1:]).returncode)' \
        "$GPUFL" trace -q -o "$DIR/log" -- sh -c "kill -$sig \$\$; sleep 5")
  want=$(python3 -c "import signal; print(-signal.SIG$sig)")
  [ "$got" = "$want" ] || fail "a program dead of SIG$sig: gpufl ended with $got, not $want (death by the signal)"
done

# 4. Exit status of a program that cannot run: 127 not found, 126 found but not executable.
"$GPUFL" trace -q -o "$DIR/log" -- "$DIR/does-not-exist" 2>/dev/null
status=$?
[ $status -eq 127 ] || fail "a missing program gave $status, not 127"
: >"$DIR/not-executable"
chmod 644 "$DIR/not-executable"
"$GPUFL" trace -q -o "$DIR/log" -- "$DIR/not-executable" 2>/dev/null
status=$?
[ $status -eq 126 ] || fail "a non-executable program gave $status, not 126"

if [ $failures -eq 0 ]; then echo "PASS: trace signals and exit statuses"; fi
exit $failures
