"""Issue 36's targets side by side, on the same synthetic sessions, interleaved in each round:

  report   `gpufl report PREFIX` (C++, output to /dev/null): wall time, peak RSS of the process
  loader   `GpuFlightSession(PREFIX)` plus one read of every real column of `kernels` (python_loader.py's child:
           time inside the child after its imports, peak RSS of the whole child); only up to --loader-max kernels
  export   `gpufl export --parquet DIR PREFIX`: wall time, peak RSS
  duckdb   a child Python running the top-kernels query (kernels.parquet joined with kernel_defs.parquet,
           grouped by name, top 10 by GPU time) on the export: time of the query inside the child (import
           excluded), peak RSS of the whole child

Targets: loader <= 1.5x the report's time and <= 3x its memory at 10M kernels; export <= 2x the report's time at
10M and its memory flat from 10M to 100M; the DuckDB query on 100M under 10 s and 1 GB. Prints medians and every
ratio; judges nothing. Each child is pinned to --cpu. The page cache is warm after the first round.

Sessions come from gpufl_gen_session (`cmake --preset bench && cmake --build build/bench --target
gpufl_gen_session`): about 19 bytes per kernel on disk (zstd segments), the Parquet export about 8. 100M kernels
need ~3 GB of disk under --dir; --keep leaves the files there, else they are deleted at the end.

Usage: python bench/big_sessions.py [--kernels 10000000,100000000] [--rounds 3] [--cpu 0] [--loader-max 10000000]
         [--python build/pyvenv/bin/python] [--gen build/bench/bench/gpufl_gen_session] [--dir D] [--keep]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_loader import CHILD as LOADER_CHILD  # noqa: E402
from python_loader import gpufl_exe, run_child  # noqa: E402

DUCKDB_CHILD = r"""
import resource, sys, time
import duckdb
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
d = sys.argv[1]
t0 = time.perf_counter()
con = duckdb.connect()
rows = con.execute(f'''WITH per_def AS (
                           SELECT sid, k, COUNT(*) AS calls, SUM(dur_ns) AS total_ns
                           FROM read_parquet('{d}/kernels.parquet') GROUP BY sid, k)
                       SELECT d.name, SUM(calls) AS calls, SUM(total_ns) AS total_ns
                       FROM per_def JOIN read_parquet('{d}/kernel_defs.parquet') d USING (sid, k)
                       GROUP BY d.name ORDER BY total_ns DESC LIMIT 10''').fetchall()
t = time.perf_counter() - t0
print(f"RESULT {t:.6f} {base} {sum(r[1] for r in rows)} {len(rows)}")
"""


def result_line(out):
    return [x for x in out.splitlines() if x.startswith("RESULT ")][-1].split()


def med(xs):
    return statistics.median(xs)


def fmt_runs(xs):
    return ", ".join(f"{x:.2f}" for x in xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default="10000000,100000000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--loader-max", type=int, default=10_000_000)
    ap.add_argument("--python", default=sys.executable, help="an interpreter with gpufl[analyzer] and duckdb")
    ap.add_argument("--gen", default="build/bench/bench/gpufl_gen_session")
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    gpufl = gpufl_exe(args.python)
    tmp = args.dir or tempfile.mkdtemp(prefix="gpufl_big_")
    os.makedirs(tmp, exist_ok=True)
    print(f"gpufl: {gpufl}\npython: {args.python}\nsessions under {tmp}; {args.rounds} rounds, core {args.cpu}")
    summary = {}
    try:
        for n in [int(x) for x in args.kernels.split(",")]:
            prefix = os.path.join(tmp, f"s{n}")
            out_dir = os.path.join(tmp, f"p{n}")
            if not os.path.exists(prefix + ".device.log"):
                subprocess.run([args.gen, "--prefix", prefix, "--kernels", str(n)], check=True,
                               stdout=subprocess.DEVNULL)
            fig = {k: ([], []) for k in ("report", "loader", "export", "duckdb")}
            for _ in range(args.rounds):
                with open(os.devnull, "w") as null:
                    w, m, _ = run_child([gpufl, "report", prefix], args.cpu, stdout=null)
                fig["report"][0].append(w)
                fig["report"][1].append(m)
                if n <= args.loader_max:
                    _, m, out = run_child([args.python, "-c", LOADER_CHILD, prefix], args.cpu)
                    line = result_line(out)
                    if int(line[3]) != n:
                        raise SystemExit(f"loader: {line[3]} kernel rows, expected {n}")
                    fig["loader"][0].append(float(line[1]))
                    fig["loader"][1].append(m)
                w, m, out = run_child([gpufl, "export", "--parquet", out_dir, prefix], args.cpu)
                if f" {n} kernels" not in out:
                    raise SystemExit(f"export: {out.strip()}")
                fig["export"][0].append(w)
                fig["export"][1].append(m)
                _, m, out = run_child([args.python, "-c", DUCKDB_CHILD, out_dir], args.cpu)
                line = result_line(out)
                fig["duckdb"][0].append(float(line[1]))
                fig["duckdb"][1].append(m)
            size = sum(os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir))
            log = sum(os.path.getsize(os.path.join(tmp, f)) for f in os.listdir(tmp) if f.startswith(f"s{n}."))
            rt, rm = med(fig["report"][0]), med(fig["report"][1]) / 1024
            print(f"\n{n:,} kernels (log {log / 1e6:,.0f} MB on disk, Parquet {size / 1e6:,.0f} MB):")
            print(f"  report: {rt:.2f} s, {rm:.0f} MB peak (runs {fmt_runs(fig['report'][0])})")
            if fig["loader"][0]:
                lt, lm = med(fig["loader"][0]), med(fig["loader"][1]) / 1024
                print(f"  loader: {lt:.2f} s, {lm:.0f} MB peak (runs {fmt_runs(fig['loader'][0])}); "
                      f"loader/report: time {lt / rt:.2f}x, memory {lm / rm:.2f}x")
            et, em = med(fig["export"][0]), med(fig["export"][1]) / 1024
            print(f"  export --parquet: {et:.2f} s, {em:.0f} MB peak (runs {fmt_runs(fig['export'][0])}); "
                  f"export/report: time {et / rt:.2f}x, memory {em / rm:.2f}x")
            dt, dm = med(fig["duckdb"][0]), med(fig["duckdb"][1]) / 1024
            print(f"  DuckDB top kernels on the Parquet: {dt:.2f} s, {dm:.0f} MB peak "
                  f"(runs {fmt_runs(fig['duckdb'][0])})")
            summary[n] = em
        if len(summary) > 1:
            lo, hi = min(summary), max(summary)
            print(f"\nexport peak memory {lo:,} -> {hi:,} kernels: {summary[lo]:.0f} -> {summary[hi]:.0f} MB "
                  f"({summary[hi] / summary[lo]:.2f}x)")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
