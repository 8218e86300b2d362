#!/usr/bin/env python3
"""gpufl against Nsight Compute (the oracle) on the same program: kernel durations and occupancy.

Runs PROGRAM under `gpufl trace` (plain tracing) and under `ncu --clock-control none`, then compares per kernel:
median duration (gpufl trace vs ncu gpu__time_duration.sum), and max active blocks per SM (gpufl kernel_def vs
the minimum of ncu's launch__occupancy_limit_*). Prints a table; exit status 1 when a kernel is off by more than
GPUFL_TRUTH_TOLERANCE (default 3%) in duration or differs at all in occupancy.

The GPU's clocks are not locked (that is how programs run), so one run of each side can differ by the clock
state alone (a 2-block kernel moved 8% between runs). The sides therefore take turns for GPUFL_TRUTH_ROUNDS
(default 3) rounds and the medians are over all launches of all rounds. With the default program, a third
witness runs in each round: kernel_zoo --events, which times each launch with CUDA events and no profiler.

Usage: bench/ncu_compare.py BUILD_DIR OUT_DIR [-- PROGRAM ARGS...]   (default program: kernel_zoo 20)
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

OCC_METRICS = ["launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
               "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks"]


def run(cmd, **kw):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def pool(rounds):
    """Merges per-round {kernel: {durations, blocks}} dicts."""
    merged = defaultdict(lambda: {"durations": [], "blocks": set()})
    for r in rounds:
        for name, k in r.items():
            merged[name]["durations"] += k["durations"]
            merged[name]["blocks"] |= k["blocks"]
    return merged


def event_rows(program):
    """kernel_zoo --events prints `events: NAME n=N median_ns=T` per kernel (seed 02's harness)."""
    p = run(program + ["--events"])
    rows = {}
    for line in p.stdout.splitlines():
        if line.startswith("events: "):
            parts = dict(f.split("=") for f in line.split()[2:])
            rows[line.split()[1]] = float(parts["median_ns"])
    return rows


def spread(values):
    v = sorted(values)
    return f"{v[len(v) // 10] / 1e3:.1f}-{v[(len(v) * 9) // 10] / 1e3:.1f}us"


def ncu_rows(program, out_dir, tag=""):
    metrics = ["gpu__time_duration.sum"] + OCC_METRICS
    # No clock locking and no cache flush between replays: the kernels run as they do in the traced program.
    p = run(["ncu", "--clock-control", "none", "--cache-control", "none", "--csv", "--print-units", "base",
             "--metrics", ",".join(metrics)] + program)
    with open(os.path.join(out_dir, f"ncu_raw{tag}.csv"), "w") as f:
        f.write(p.stdout)
    text = p.stdout[p.stdout.find('"ID"'):] if '"ID"' in p.stdout else ""
    per_launch = defaultdict(dict)
    for row in csv.DictReader(io.StringIO(text)):
        value = row["Metric Value"].replace(",", "")
        try:
            per_launch[(row["ID"], row["Kernel Name"])][row["Metric Name"]] = float(value)
        except ValueError:
            pass
    kernels = defaultdict(lambda: {"durations": [], "blocks": set()})
    for (_, name), m in per_launch.items():
        short = name.split("(")[0].split("<")[0].replace("void ", "").strip()
        if "gpu__time_duration.sum" in m:
            kernels[short]["durations"].append(m["gpu__time_duration.sum"])
        limits = [m[k] for k in OCC_METRICS if k in m]
        if limits:
            kernels[short]["blocks"].add(int(min(limits)))
    return kernels


def gpufl_rows(build, program, out_dir, tag=""):
    gpufl = os.path.join(build, "apps", "gpufl", "gpufl")
    prefix = os.path.join(out_dir, "trace" + tag)
    p = run([gpufl, "trace", "-o", prefix, "--"] + program)
    print(p.stdout[-3000:])
    p = run([gpufl, "cat", prefix])
    defs, kernels = {}, defaultdict(lambda: {"durations": [], "blocks": set()})
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "kernel_def":
            defs[r["k"]] = r
        elif r.get("type") == "kernel_event":
            d = defs.get(r["k"])
            if d is None:
                continue
            short = d.get("demangled", d["name"]).split("(")[0].split("<")[0].replace("void ", "").strip()
            kernels[short]["durations"].append(r["end_ns"] - r["start_ns"])
            if "max_active_blocks" in d:
                kernels[short]["blocks"].add(int(d["max_active_blocks"]))
    return kernels


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    build, out_dir = args[0], args[1]
    zoo = len(args) <= 2 or args[2] != "--"
    program = [os.path.join(build, "examples", "cuda", "kernel_zoo"), "20"] if zoo else args[3:]
    tolerance = float(os.environ.get("GPUFL_TRUTH_TOLERANCE", "0.03"))
    rounds = int(os.environ.get("GPUFL_TRUTH_ROUNDS", "3"))
    os.makedirs(out_dir, exist_ok=True)
    ours_r, oracle_r, events_r = [], [], []
    for i in range(rounds):
        ours_r.append(gpufl_rows(build, program, out_dir, f".{i}"))
        oracle_r.append(ncu_rows(program, out_dir, f".{i}"))
        if zoo:
            events_r.append(event_rows(program))
    ours, oracle = pool(ours_r), pool(oracle_r)
    for name in sorted(ours):
        per_round = []
        for o, n in zip(ours_r, oracle_r):
            if o.get(name, {}).get("durations") and n.get(name, {}).get("durations"):
                per_round.append(statistics.median(o[name]["durations"]) / statistics.median(n[name]["durations"]))
        print(f"{name:32s} gpufl/ncu per round: " + " ".join(f"{r:.3f}" for r in per_round))
    bad = 0
    print(f"{'kernel':32s} {'n':>4s} {'gpufl med ns':>13s} {'ncu med ns':>12s} {'ratio':>7s} "
          f"{'events ns':>10s} {'gpufl/ev':>8s}  p10-p90 gpufl | ncu   blocks/SM gpufl ncu")
    for name in sorted(set(ours) | set(oracle)):
        o, n = ours.get(name), oracle.get(name)
        if not o or not n or not o["durations"] or not n["durations"]:
            print(f"{name:32s} missing in {'gpufl' if not o else 'ncu'}")
            bad += 1
            continue
        mo, mn = statistics.median(o["durations"]), statistics.median(n["durations"])
        ratio = mo / mn
        ev = [r[name] for r in events_r if name in r]
        me = statistics.median(ev) if ev else float("nan")
        occ_ok = o["blocks"] == n["blocks"]
        flag = "" if abs(ratio - 1) <= tolerance and occ_ok else "  <-- off"
        bad += bool(flag)
        print(f"{name:32s} {len(o['durations']):4d} {mo:13.0f} {mn:12.0f} {ratio:7.3f} {me:10.0f} {mo / me:8.3f}  "
              f"{spread(o['durations'])} | {spread(n['durations'])}   "
              f"{sorted(o['blocks'])} {sorted(n['blocks'])}{flag}")
    print(f"{bad} kernel(s) outside tolerance {tolerance:.0%} or with different occupancy")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
