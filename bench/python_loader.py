"""Cost of loading a session into Python (`GpuFlightSession(...)` + touching its kernels table) against
`gpufl report` on the same files (issue 19's target: the loader within 1.5x of the report's time and 3x its memory).

Generates synthetic sessions of N kernels with gpufl_gen_session (`cmake --preset bench`, target gpufl_gen_session),
then runs, interleaved for --rounds rounds, each in a fresh child process pinned to one core (--cpu):
  report   the bundled C++ `gpufl report PREFIX` (output to /dev/null): wall time and peak RSS of the process
  loader   for each --python interpreter (a venv with gpufl installed): `GpuFlightSession(PREFIX)` then every
           column of `kernels` read once (its memory and its values are touched). Time: the load inside the child,
           import excluded; peak RSS: the whole child (wait4), and `base`: the child's RSS after the imports.
Prints medians and the ratios loader/report (time; peak RSS). The page cache is warm after the first round.

Usage: python bench/python_loader.py [--kernels 2000000,10000000] [--rounds 3] [--cpu 0]
         [--python build/pyvenv/bin/python] [--python build/pyvenv-before/bin/python] [--gen PATH] [--dir D]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

# The loader child: imports first (not timed), then the load and a pass over every kernels column.
CHILD = r"""
import resource, sys, time
import numpy as np
import gpufl.analyzer as A
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
s = A.GpuFlightSession(sys.argv[1])
k = s.kernels
touched = 0
for c in k.columns:
    v = k[c].to_numpy() if not hasattr(k[c], "cat") else k[c].cat.codes.to_numpy()
    touched += len(v)
t = time.perf_counter() - t0
print(f"RESULT {t:.6f} {base} {len(k)} {touched} {len(k.columns)}")
"""


def run_child(cmd, cpu, stdout=subprocess.PIPE):
    """-> (wall s, peak RSS KiB, stdout text). The child is pinned to `cpu` before it starts."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE,
                         preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    out = p.stdout.read().decode() if p.stdout else ""
    err = p.stderr.read().decode()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({os.waitstatus_to_exitcode(status)}): {err[-2000:]}")
    return wall, usage.ru_maxrss, out


def gpufl_exe(python):
    out = subprocess.run([python, "-c", "import gpufl._cli as c; print(c.executable())"], check=True,
                         capture_output=True, text=True)
    return out.stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="2000000,10000000", help="comma-separated kernel counts")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--python", action="append", help="interpreter(s) whose gpufl to measure (default: this one)")
    ap.add_argument("--gen", default="build/bench/bench/gpufl_gen_session")
    ap.add_argument("--dir", default=None, help="where to write the sessions (default: a temporary directory)")
    args = ap.parse_args()
    pythons = args.python or [sys.executable]
    report = gpufl_exe(pythons[0])
    counts = [int(x) for x in args.kernels.split(",")]
    tmp = args.dir or tempfile.mkdtemp(prefix="gpufl_pyloader_")
    print(f"report: {report}\nsessions under {tmp}; {args.rounds} rounds, core {args.cpu}")
    for n in counts:
        prefix = os.path.join(tmp, f"s{n}")
        if not os.path.exists(prefix + ".device.log"):
            subprocess.run([args.gen, "--prefix", prefix, "--kernels", str(n)], check=True,
                           stdout=subprocess.DEVNULL)
        rep_t, rep_m = [], []
        ld = {py: ([], [], [], []) for py in pythons}
        for _ in range(args.rounds):
            with open(os.devnull, "w") as null:
                w, m, _ = run_child([report, "report", prefix], args.cpu, stdout=null)
            rep_t.append(w)
            rep_m.append(m)
            for py in pythons:
                whole, m, out = run_child([py, "-c", CHILD, prefix], args.cpu)
                line = [x for x in out.splitlines() if x.startswith("RESULT ")][-1].split()
                t, base, rows = float(line[1]), int(line[2]), int(line[3])
                if rows != n:
                    raise SystemExit(f"{py}: {rows} kernel rows, expected {n}")
                ld[py][0].append(t)
                ld[py][1].append(m)
                ld[py][2].append(base)
                ld[py][3].append(whole)
        rt, rm = statistics.median(rep_t), statistics.median(rep_m) / 1024
        print(f"\n{n:,} kernels: report {rt:.2f} s, {rm:.0f} MB peak (runs {', '.join(f'{x:.2f}' for x in rep_t)})")
        for py in pythons:
            t, m, b, whole = (statistics.median(v) for v in ld[py])
            print(f"  loader [{py}]: {t:.2f} s, {m / 1024:.0f} MB peak ({b / 1024:.0f} MB after imports; "
                  f"{(m - b) * 1024 / n:.0f} B/kernel above that); runs {', '.join(f'{x:.2f}' for x in ld[py][0])}; "
                  f"whole process with its imports {whole:.2f} s")
            print(f"    loader/report: time {t / rt:.2f}x (whole process {whole / rt:.2f}x), "
                  f"peak memory {m / 1024 / rm:.1f}x")


if __name__ == "__main__":
    main()
