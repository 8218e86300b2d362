#!/usr/bin/env python3
"""gpufl's deep engines against Nsight Compute (the oracle), on the four CUDA example programs.

a) SASS counters. Each demo runs with GPUFL_ENGINE=SassMetrics (the first deep_launches_per_kernel = 5 launches
   of each kernel are instrumented); `gpufl cat` gives the sass_metric rows (per function and PC, summed over the
   instrumented launches). Per function: sum over PCs / launches. The same demo then runs under
   `ncu --clock-control none --metrics smsp__sass_inst_executed.sum,...` with GPUFL_DISABLE=1 (two CUPTI clients
   conflict). Per kernel: inst_executed, thread_inst_executed, sectors_global, sectors_global_ideal must be EQUAL
   (gpufl's per-launch average vs ncu's first launch; ncu's launches are checked to be identical), plus warp
   efficiency (thread_inst / inst, active threads per warp; flagged when off by > 0.1) and memory efficiency
   (ideal / actual sectors).
b) Range profiler. Each demo runs with GPUFL_ENGINE=RangeProfiler; the range_counters records (one per instance
   of an outermost user scope, metric groups taking turns every 16 ranges) are aggregated per scope path
   (median per metric). Scopes whose launches all belong to one kernel are compared with ncu's median over
   that kernel's launches (`ncu --cache-control none --clock-control none --metrics <the 8 default metrics>`);
   .sum metrics are divided by the launches per scope instance. Ratio gpufl/ncu, flagged outside 5%; for
   pct metrics the difference in percentage points too. A range includes one ~80 us `WaitNs` kernel of CUPTI
   (docs/deep-engines.md): the duration line says when the difference is about that.
   With --range-per-kernel the demo then runs once more with GPUFL_RANGE_PER_KERNEL=1 (log prefix rangek): every
   kernel launched in an outermost scope is its own range, one range_counters record with `kernel` per launch.
   Per kernel: the median of each metric over its launch records against the same ncu medians, no division (one
   launch per range, no WaitNs expected in it); same 5% flagging. The run's WaitNs kernel_events are counted,
   and a run without per-kernel records (or a crash) is reported with the range profiler's notes.

Everything printed also goes to OUT_DIR/deep_truth.txt; each demo runs in its own directory OUT_DIR/<demo>/,
which keeps the gpufl logs (sass.*.log, range.*.log, rangek.*.log), the raw ncu output and CSVs, and the
programs' output. Every subprocess has a timeout; the exact commands are printed ("$ ...").
Exit status: 1 when any SASS counter differs from ncu's or is missing (after all demos ran), else 0. The range
profiler comparison is reported, not counted in the status.

   With --cold-l2 the demos read a buffer of 3x the L2's size before each scope (GPUFL_EXAMPLE_COLD_L2=1,
   examples/cuda/cold_l2.hpp), in gpufl's runs and ncu's: each measured kernel starts with none of its data in L2,
   as under ncu's default --cache-control all, so short kernels' DRAM bytes and L2 hit rate can be compared; ncu
   then measures CACHE_METRICS under --cache-control all (without flushing, its passes of a multi-pass metric
   such as the L2 hit rate see the earlier passes' lines in L2), the rest under --cache-control none. Only the
   first launch of a scope starts cold, so this is like-for-like for scopes of one launch (not matmul_tiling's 10).

Usage: bench/deep_truth.py BUILD_DIR OUT_DIR [--demos a,b] [--skip-sass] [--skip-range] [--range-per-kernel]
                           [--cold-l2]
       (--range-per-kernel: part b also compares per-kernel ranges, GPUFL_RANGE_PER_KERNEL=1, with ncu)
       bench/deep_truth.py --self-test        (parsers against fake data; no GPU)
"""
import argparse
import csv
import glob
import io
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict

from bench_common import Tee, env_without, run_in_group

# demo binary -> ncu --launch-count (None: every launch). occupancy_reduction alternates its two kernels 20
# times: the first 10 launches give 5 of each.
DEMOS = {
    "memory_coalescing_demo": None,
    "sass_divergence_demo": None,
    "matmul_tiling_demo": None,
    "occupancy_reduction_demo": 10,
}
# sass_metric field -> ncu metric
SASS_COUNTERS = {
    "inst_executed": "smsp__sass_inst_executed.sum",
    "thread_inst_executed": "smsp__sass_thread_inst_executed.sum",
    "sectors_global": "smsp__sass_sectors_mem_global.sum",
    "sectors_global_ideal": "smsp__sass_sectors_mem_global_ideal.sum",
}
RANGE_METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
]
# short names for the summary lines
SHORT = {"inst_executed": "inst", "thread_inst_executed": "thread_inst", "sectors_global": "sectors",
         "sectors_global_ideal": "ideal", "gpu__time_duration.sum": "time", "dram__bytes_read.sum": "dram_rd",
         "dram__bytes_write.sum": "dram_wr", "sm__warps_active.avg.pct_of_peak_sustained_active": "warps_active",
         "l1tex__t_sector_hit_rate.pct": "l1_hit", "lts__t_sector_hit_rate.pct": "l2_hit",
         "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_throughput"}
# Counters ncu may print as n/a: ncu 2025.3.1 lists no smsp__sass_sectors_mem_global_ideal for gh100
# (`ncu --query-metrics --chip gh100`) and prints n/a for it even in a program without gpufl (H200, 2026-11-30),
# while CUPTI's SASS Metrics API offers it. Not counted as a difference; the seeds' figures check it instead.
NCU_LACKS = {"sectors_global_ideal"}
# Metrics that depend on what the caches hold when the kernel starts (compared again with flushed caches).
CACHE_METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct"]
RUN_TIMEOUT_S = 180
NCU_TIMEOUT_S = 300
RANGE_TOLERANCE = 0.05
PCT_POINTS_EQUAL = 0.5
WARP_EFF_TOLERANCE = 0.1
WAITNS_US = (40.0, 150.0)  # a duration excess in this band reads as the range's extra WaitNs kernel
OUR_ENV = ("GPUFL_ENGINE", "GPUFL_DISABLE", "GPUFL_LOG_PATH", "GPUFL_PC_SAMPLING_PRESET",
           "GPUFL_RANGE_PER_KERNEL", "GPUFL_EXAMPLE_COLD_L2")


out = print  # replaced by a Tee in main()


# ---------------------------------------------------------------------------------------------- running


def clean_env(extra):
    return env_without(OUR_ENV, extra)


def communicate(cmd, cwd, env, timeout):
    """-> (exit code, or 'timeout' / 'error: ...', stdout, stderr); see bench_common.run_in_group."""
    rc, _, stdout, stderr = run_in_group(cmd, cwd, env, timeout)
    return rc, stdout, stderr


def run(cmd, cwd, extra_env=None, timeout=RUN_TIMEOUT_S, save_as=None):
    """Runs cmd in cwd with extra_env; prints the exact command; saves stdout/stderr to save_as.{stdout,stderr}.txt
    in cwd. Returns (exit code or 'timeout'/'error: ...', stdout text, stderr text)."""
    extra_env = extra_env or {}
    env_text = " ".join(f"{k}={shlex.quote(v)}" for k, v in extra_env.items())
    out(f"$ (cd {shlex.quote(cwd)} && {env_text + ' ' if env_text else ''}{shlex.join(cmd)})")
    t0 = time.perf_counter()
    rc, stdout, stderr = communicate(cmd, cwd, clean_env(extra_env), timeout)
    if save_as:
        with open(os.path.join(cwd, save_as + ".stdout.txt"), "w") as f:
            f.write(stdout)
        with open(os.path.join(cwd, save_as + ".stderr.txt"), "w") as f:
            f.write(stderr)
    out(f"  -> exit {rc} in {time.perf_counter() - t0:.1f} s")
    if rc != 0:
        out("  stderr tail: " + stderr[-1500:].replace("\n", "\n  "))
    return rc, stdout, stderr


def remove_logs(cwd, prefix):
    for path in glob.glob(os.path.join(cwd, prefix + ".*.log*")):
        os.remove(path)


def gpufl_records(gpufl, cwd, prefix):
    """The latest session under prefix, as parsed records (`gpufl cat`, all channels)."""
    rc, text, _ = run([gpufl, "cat", prefix], cwd)
    return parse_ndjson(text)


def check_engine(records, engine):
    """Prints the engine the session says it ran; False when it is not the one asked for."""
    seen = next((r.get("engine") for r in records if r["type"] == "session_start"), None)
    out(f"  gpufl session: engine {seen}, {len(records)} records"
        + ("" if seen == engine else f"  <-- asked for {engine}"))
    return seen == engine


def parse_ndjson(text):
    records = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if isinstance(r, dict) and "type" in r:
            records.append(r)
    return records


def ncu_command(metrics, launch_count, binary, cache_control_none):
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    cmd = [ncu, "--clock-control", "none"]
    if cache_control_none:
        cmd += ["--cache-control", "none"]
    cmd += ["--csv", "--print-units", "base", "--metrics", ",".join(metrics)]
    if launch_count:
        cmd += ["--launch-count", str(launch_count)]
    return cmd + [binary]


def run_ncu(metrics, launch_count, binary, cache_control_none, cwd, tag, demo_env=None):
    """Runs ncu (GPUFL_DISABLE=1, plus demo_env), keeps its raw output and the CSV part; returns the parsed
    launches. ncu refuses the whole run when one metric is unknown: the metrics its messages name are dropped and
    it runs once more."""
    cmd = ncu_command(metrics, launch_count, binary, cache_control_none)
    env = {"GPUFL_DISABLE": "1", **(demo_env or {})}
    rc, text, err = run(cmd, cwd, env, timeout=NCU_TIMEOUT_S, save_as=tag + ".raw")
    launches = parse_ncu_csv(extract_ncu_csv(text))
    messages = "\n".join(l for l in (text + "\n" + err).splitlines() if "==ERROR==" in l or "==WARNING==" in l)
    named = [m for m in metrics if m in messages]
    if not launches and named and len(named) < len(metrics) and rc != "timeout":
        out(f"  ncu named {named} in its messages; running once more without them")
        cmd = ncu_command([m for m in metrics if m not in named], launch_count, binary, cache_control_none)
        rc, text, err = run(cmd, cwd, env, timeout=NCU_TIMEOUT_S, save_as=tag + ".retry.raw")
        launches = parse_ncu_csv(extract_ncu_csv(text))
    with open(os.path.join(cwd, tag + ".csv"), "w") as f:
        f.write(extract_ncu_csv(text))
    if not launches:
        out(f"  ncu gave no results (exit {rc}); see {os.path.join(cwd, tag + '*.raw.std*.txt')}")
        for line in messages.splitlines()[:10]:
            out("  " + line[:300])
    return launches


# ---------------------------------------------------------------------------------------------- parsing


def base_name(name):
    """'void matmul_naive(const float *, ...)' -> 'matmul_naive' (ncu's and gpufl's demangled names alike)."""
    name = name.split("(")[0].strip()
    if name.startswith("void "):
        name = name[len("void "):]
    return name.strip()


def extract_ncu_csv(text):
    """ncu --csv prints the program's output, ==PROF== lines, then the CSV, whose header starts with "ID"."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith('"ID"'):
            return "\n".join(l for l in lines[i:] if l.startswith('"')) + "\n"
    return ""


def parse_number(text):
    try:
        return float(text.replace(",", "").strip())
    except (ValueError, AttributeError):
        return None


def parse_ncu_csv(csv_text):
    """-> [(id, kernel base name, {metric: float or None})] in launch (ID) order."""
    per_id = {}
    for row in csv.DictReader(io.StringIO(csv_text)):
        try:
            key = int(row["ID"])
        except (KeyError, TypeError, ValueError):
            continue
        entry = per_id.setdefault(key, (key, base_name(row.get("Kernel Name", "")), {}))
        entry[2][row.get("Metric Name", "")] = parse_number(row.get("Metric Value", ""))
    return [per_id[k] for k in sorted(per_id)]


def merge_launches(runs):
    """Per-metric ncu runs of the same program -> one launch list: the i-th launch of each run is the same
    launch (same program, same order); a run with another launch sequence is left out."""
    runs = [r for r in runs if r]
    if not runs:
        return []
    merged = [(i, name, dict(metrics)) for i, name, metrics in runs[0]]
    for r in runs[1:]:
        if [name for _, name, _ in r] != [name for _, name, _ in merged]:
            out("  an ncu run saw other launches than the first; its metric is left out")
            continue
        for (_, _, into), (_, _, metrics) in zip(merged, r):
            into.update(metrics)
    return merged


def ncu_by_kernel(launches):
    """-> {kernel: [metrics of each launch, in order]}"""
    kernels = defaultdict(list)
    for _, name, metrics in launches:
        kernels[name].append(metrics)
    return kernels


def demangled_names(records):
    return {r["name"]: r.get("demangled") or r["name"] for r in records if r["type"] == "kernel_def" and "name" in r}


def gpufl_sass(records):
    """Per kernel base name: summed counters, the instrumented launches, and whether every row of the function
    said the same `launches`. Rows of one PC written at different times add up, so the launches of a function
    are the largest sum of `launches` over the rows of one PC (the entry PC runs on every launch)."""
    names = demangled_names(records)
    funcs = {}
    for r in records:
        if r["type"] != "sass_metric":
            continue
        f = funcs.setdefault(r["func"], {"sums": Counter(), "pc_launches": Counter(), "launch_values": set(),
                                         "rows": 0})
        for c in SASS_COUNTERS:
            f["sums"][c] += int(r.get(c, 0))
        f["pc_launches"][r.get("pc")] += int(r.get("launches", 0))
        f["launch_values"].add(int(r.get("launches", 0)))
        f["rows"] += 1
    result = {}
    for func, f in funcs.items():
        key = base_name(names.get(func, func))
        if key in result:  # two functions with one base name (overloads): keep both apart
            key = f"{key} [{func}]"
        result[key] = {"func": func, "sums": f["sums"], "rows": f["rows"],
                       "launches": max(f["pc_launches"].values()) if f["pc_launches"] else 0,
                       "uniform": len(f["launch_values"]) == 1, "launch_values": sorted(f["launch_values"])}
    return result


def kernel_defs(records):
    """-> {kernel id: base name} from the kernel_def records."""
    names = demangled_names(records)
    return {r["k"]: base_name(names.get(r.get("name"), r.get("name", "?"))) for r in records
            if r["type"] == "kernel_def" and "k" in r}


def gpufl_ranges(records):
    """Per scope path: name, instances (scope_begin count), kernel base names launched in it (CUPTI's WaitNs
    left out) and every value each metric took in range_counters records. Per-kernel ranges (records with
    `kernel`) measure one launch, not a scope instance: they are left out here (gpufl_kernel_ranges)."""
    defs = kernel_defs(records)
    scopes = {}

    def scope(p, name=None):
        s = scopes.setdefault(p, {"name": name, "instances": 0, "kernels": Counter(), "waitns": 0, "waitns_ns": [],
                                  "metrics": defaultdict(list), "ranges": 0})
        if name and not s["name"]:
            s["name"] = name
        return s

    for r in records:
        t = r["type"]
        if t == "scope_path":
            scope(r["p"], r.get("name"))
        elif t == "scope_begin":
            scope(r["p"], r.get("name"))["instances"] += 1
        elif t == "kernel_event" and r.get("scope"):
            k = defs.get(r.get("k"), "?")
            if "WaitNs" in k:
                scope(r["scope"])["waitns"] += 1
                if isinstance(r.get("dur_ns"), (int, float)):
                    scope(r["scope"])["waitns_ns"].append(float(r["dur_ns"]))
            else:
                scope(r["scope"])["kernels"][k] += 1
    by_name = {s["name"]: p for p, s in scopes.items() if s["name"]}
    for r in records:
        if r["type"] != "range_counters" or r.get("kernel"):
            continue
        p = r.get("p") or by_name.get(r.get("range")) or ("range", r.get("range"))
        s = scope(p, r.get("range"))
        s["ranges"] += 1
        add_metrics(s["metrics"], r)
    return scopes


def add_metrics(into, record):
    """Appends each numeric metric of a range_counters record to into[metric] (null values are left out)."""
    for m, v in (record.get("metrics") or {}).items():
        if isinstance(v, (int, float)):
            into[m].append(float(v))


def gpufl_kernel_ranges(records):
    """Per-kernel ranges (GPUFL_RANGE_PER_KERNEL=1), per kernel base name: launch records, the scopes they ran
    in, and every value each metric took. `kernel` is CUPTI's range name, mangled or demangled: mapped through
    the kernel_defs like every other kernel name, so it meets ncu's names."""
    names = demangled_names(records)
    kernels = {}
    for r in records:
        if r["type"] != "range_counters" or not r.get("kernel"):
            continue
        name = base_name(names.get(r["kernel"], r["kernel"]))
        k = kernels.setdefault(name, {"ranges": 0, "scopes": Counter(), "metrics": defaultdict(list)})
        k["ranges"] += 1
        k["scopes"][r.get("range", "?")] += 1
        add_metrics(k["metrics"], r)
    return kernels


def waitns_events(records):
    """kernel_event records of CUPTI's WaitNs kernel (a range adds one; do per-kernel ranges too?)."""
    defs = kernel_defs(records)
    return sum(1 for r in records if r["type"] == "kernel_event" and "WaitNs" in defs.get(r.get("k"), ""))


# ---------------------------------------------------------------------------------------------- comparing


def fmt(v, digits=3):
    if v is None:
        return "n/a"
    if float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:,.{digits}f}"


def compare_sass(demo, ours, oracle, brief=None):
    """Prints one table per kernel (and one line per kernel into `brief`); returns the number of problems
    (differences or missing data)."""
    brief = [] if brief is None else brief
    problems = 0
    for kernel in sorted(set(ours) | set(oracle)):
        o, n = ours.get(kernel), oracle.get(kernel)
        out(f"\n[{demo}] {kernel}")
        if not o or not n:
            out(f"  MISSING in {'gpufl (no sass_metric rows)' if not o else 'ncu'}")
            brief.append(f"    {kernel}: MISSING in {'gpufl' if not o else 'ncu'}")
            problems += 1
            continue
        L = o["launches"]
        first = n[0]
        same = all(m == first for m in n[1:])
        out(f"  gpufl: {L} instrumented launch(es), {o['rows']} PC rows" +
            ("" if o["uniform"] else f"; rows disagree on `launches`: {o['launch_values']} (used {L})"))
        out(f"  ncu:   {len(n)} launch(es) profiled, " +
            ("identical" if same else "NOT identical across launches (first one compared)"))
        if not same:
            for i, m in enumerate(n):
                out("    launch %d: %s" % (i, ", ".join(f"{c}={fmt(m.get(SASS_COUNTERS[c]))}" for c in SASS_COUNTERS)))
        out(f"  {'counter':24s} {'gpufl/launch':>16s} {'ncu':>16s}  equal")
        per, line = {}, []
        for c, metric in SASS_COUNTERS.items():
            nv = first.get(metric)
            gsum = o["sums"][c]
            gv = gsum / L if L else None
            per[c] = (gv, nv)
            if nv is None and c in NCU_LACKS:  # not a difference: nothing to compare with
                line.append(f"{SHORT[c]} ncu n/a")
                out(f"  {c:24s} {fmt(gv, 1):>16s} {'n/a':>16s}  (ncu has no such metric on this GPU)")
                continue
            equal = nv is not None and L > 0 and float(nv).is_integer() and gsum == int(nv) * L
            problems += not equal
            line.append(f"{SHORT[c]} {'equal' if equal else 'DIFFERS'}")
            out(f"  {c:24s} {fmt(gv, 1):>16s} {fmt(nv):>16s}  {'yes' if equal else 'NO'}")
        (gi, ni), (gt, nt) = per["inst_executed"], per["thread_inst_executed"]
        if gi and ni and gt is not None and nt is not None:
            ge, ne = gt / gi, nt / ni
            flag = "  <-- off" if abs(ge - ne) > WARP_EFF_TOLERANCE else ""
            out(f"  {'warp eff (threads/warp)':24s} {ge:16.3f} {ne:16.3f}  diff {ge - ne:+.3f}{flag}")
            line.append(f"warp eff {ge:.2f}/{ne:.2f}{flag}")
        (gs, ns), (gid, nid) = per["sectors_global"], per["sectors_global_ideal"]
        if gs and ns and gid is not None and nid is not None:
            out(f"  {'mem eff (ideal/actual)':24s} {100 * gid / gs:15.2f}% {100 * nid / ns:15.2f}%")
        brief.append(f"    {kernel}: " + ", ".join(line) + ("" if same else "; ncu launches differ"))
    return problems


METRIC_HEADER = f"  {'metric':72s} {'n':>3s} {'gpufl':>14s} {'ncu':>14s} {'ratio':>7s} {'pp':>7s}"


def metric_row(m, values, ncu_launches, launches_per_range):
    """One table line (under METRIC_HEADER): gpufl's median of `values` (a .sum divided by the launches per
    range) against ncu's median over its launches; ratio gpufl/ncu, and the difference in pp for pct metrics. A pct metric
    within PCT_POINTS_EQUAL points of ncu's is not off whatever the ratio (tensor activity 0.01% against 0.006%).
    -> (gpufl value, ncu value, 1 when off by more than RANGE_TOLERANCE else 0, the brief's text)."""
    nvals = [x[m] for x in ncu_launches if x.get(m) is not None]
    g = statistics.median(values) if values else None
    if g is not None and m.endswith(".sum") and launches_per_range:
        g = g / launches_per_range
    nv = statistics.median(nvals) if nvals else None
    ratio = pp = None
    if g is not None and nv is not None:
        ratio = g / nv if nv else (1.0 if g == 0 else None)
        if "pct" in m:
            pp = g - nv
    flag, off = "", 0
    if g is None:
        flag = "  (not collected by gpufl)"
    elif nv is None:
        flag = "  (no ncu value)"
    elif pp is not None and abs(pp) < PCT_POINTS_EQUAL:
        flag = "  (within 0.5 pp)" if ratio is None or abs(ratio - 1) > RANGE_TOLERANCE else ""
    elif ratio is None or abs(ratio - 1) > RANGE_TOLERANCE:
        flag = "  <-- off"
        off = 1
    text = (f"{SHORT.get(m, m)} " + (f"{ratio:.2f}" if ratio is not None else "-")
            + (f" ({pp:+.1f}pp)" if pp is not None else "") + ("!" if off else ""))
    ratio_text = f"{ratio:.3f}" if ratio is not None else "-"
    pp_text = f"{pp:+.2f}" if pp is not None else ""
    out(f"  {m:72s} {len(values):3d} {fmt(g, 2):>14s} {fmt(nv, 2):>14s} {ratio_text:>7s} {pp_text:>7s}{flag}")
    return g, nv, off, text


def metric_table(metrics, ncu_launches, launches_per_range, on_time):
    """The table of RANGE_METRICS (metric_row each); on_time(gpufl, ncu, line) adds the duration's own lines when
    both have one. -> (values off by more than RANGE_TOLERANCE, the brief's texts)."""
    out(METRIC_HEADER)
    flagged, line = 0, []
    for m in RANGE_METRICS:
        g, nv, off, text = metric_row(m, metrics.get(m, []), ncu_launches, launches_per_range)
        flagged += off
        line.append(text)
        if m == "gpu__time_duration.sum" and g is not None and nv is not None:
            on_time(g, nv, line)
    return flagged, line


def waitns_excess(g, nv, launches_per_range):
    """A range's duration (g per launch) over ncu's kernel time: -> (extra us per range, a note when that is
    about one WaitNs kernel)."""
    extra_us = (g - nv) * launches_per_range / 1000.0
    near_waitns = WAITNS_US[0] <= extra_us <= WAITNS_US[1]
    return extra_us, " = about the range's extra WaitNs kernel (~80 us)" if near_waitns else ""


def single_kernel_scopes(scopes):
    """Scope paths whose launches are all of one kernel: {kernel: scope}."""
    result = {}
    for p, s in scopes.items():
        if len(s["kernels"]) == 1:
            kernel = next(iter(s["kernels"]))
            if kernel in result:
                result[kernel] = None  # two scopes of one kernel: ambiguous, skip
            else:
                result[kernel] = s
    return {k: s for k, s in result.items() if s}


def compare_ranges(demo, scopes, oracle, brief=None):
    """Prints one table per scope (and one line per scope into `brief`: gpufl/ncu ratios, ! when off); returns
    the number of flagged values plus scopes that could not be compared."""
    brief = [] if brief is None else brief
    flagged = 0
    matched = single_kernel_scopes(scopes)
    for p, s in scopes.items():
        if s["ranges"] and len(s["kernels"]) != 1:
            out(f"\n[{demo}] scope {s['name']}: {s['ranges']} range(s) but kernels {dict(s['kernels'])}: not compared")
    if not matched:
        out(f"\n[{demo}] no scope with one kernel and range_counters; scopes: "
            + ", ".join(f"{s['name']} ({s['ranges']} ranges, {dict(s['kernels'])})" for s in scopes.values()))
    for kernel in sorted(matched):
        s = matched[kernel]
        n = oracle.get(kernel, [])
        per_instance = s["kernels"][kernel] / s["instances"] if s["instances"] else 0
        out(f"\n[{demo}] scope \"{s['name']}\" = {kernel}: {s['instances']} instance(s), "
            f"{s['ranges']} range record(s), {per_instance:g} launch(es) per instance, {s['waitns']} WaitNs event(s); "
            f"ncu: {len(n)} launch(es)")
        if not s["ranges"] or not n:
            why = "no range_counters for this scope" if not s["ranges"] else "ncu profiled no launch of it"
            out("  not compared: " + why)
            brief.append(f"    {kernel}: not compared, {why}")
            flagged += 1
            continue

        def on_time(g, nv, line):
            extra_us, note = waitns_excess(g, nv, per_instance)
            out(f"    range duration - ncu kernel time x {per_instance:g}: {extra_us:+.1f} us per range{note}")
            if s["waitns_ns"] and nv:
                w = statistics.median(s["waitns_ns"])
                out(f"    WaitNs kernel_event in this scope: median {w / 1000:.1f} us; range duration without it, "
                    f"per launch: {fmt((g * per_instance - w) / per_instance, 2)} ns, ratio "
                    f"{(g * per_instance - w) / per_instance / nv:.3f}")
            line.append(f"(range time {extra_us:+.0f} us{' ~WaitNs' if note else ''})")

        off, line = metric_table(s["metrics"], n, per_instance, on_time)
        flagged += off
        brief.append(f"    {kernel} ({s['name']}): " + " ".join(line))
    return flagged


def compare_kernel_ranges(demo, kernels, oracle, brief=None, flushed=None):
    """Per-kernel ranges: one table per kernel (and one line per kernel into `brief`), each record one launch,
    so no division; returns the number of flagged values plus kernels that could not be compared. `flushed`:
    ncu launches of the cache-dependent metrics (CACHE_METRICS) under --cache-control all, shown beside (not
    counted): what a short kernel moves to and from DRAM depends on what L2 held when it started, and on the
    H200 (2026-11-29) the per-kernel ranges matched neither ncu mode for the short kernels (docs/measurements.md)."""
    brief = [] if brief is None else brief
    flagged = 0
    unranged = sorted(set(oracle) - set(kernels))
    if unranged:  # kernels launched outside any scope get no range: a note, not a problem
        out(f"\n[{demo}] ncu kernels without per-kernel ranges: {', '.join(unranged)}")
    for kernel in sorted(kernels):
        k, n = kernels[kernel], oracle.get(kernel, [])
        out(f"\n[{demo}] kernel {kernel}: {k['ranges']} per-kernel range(s) in scope(s) {dict(k['scopes'])}; "
            f"ncu: {len(n)} launch(es)")
        if not n:
            out("  not compared: ncu profiled no launch of it")
            brief.append(f"    {kernel}: not compared, ncu profiled no launch of it")
            flagged += 1
            continue

        def on_time(g, nv, line):
            extra_us, note = waitns_excess(g, nv, 1)
            out(f"    range duration - ncu kernel time: {extra_us:+.1f} us per launch{note}")

        off, line = metric_table(k["metrics"], n, 1, on_time)
        flagged += off
        if flushed and flushed.get(kernel):
            out("  vs ncu --cache-control all (caches flushed before each launch; not counted):")
            for m in CACHE_METRICS:
                line.append("all:" + metric_row(m, k["metrics"].get(m, []), flushed[kernel], 1)[3])
        brief.append(f"    {kernel} ({k['ranges']} ranges): " + " ".join(line))
    return flagged


# ---------------------------------------------------------------------------------------------- driver


def sass_part(build, gpufl, demo, cwd, summary):
    binary = os.path.join(build, "examples", "cuda", demo)
    out(f"\n=== {demo}: SASS counters, gpufl SassMetrics vs ncu")
    remove_logs(cwd, "sass")
    rc, _, _ = run([binary], cwd, {"GPUFL_ENGINE": "SassMetrics", "GPUFL_LOG_PATH": "sass"}, save_as="sass.program")
    records = gpufl_records(gpufl, cwd, "sass")
    engine_ok = check_engine(records, "SassMetrics")
    ours = gpufl_sass(records)
    for r in records:
        if r["type"] == "note" and r.get("feature") in ("sass_metrics", "deep_engines") and r.get("status") != "on":
            out(f"  gpufl note {r.get('feature')} {r.get('status')}: {r.get('reason', '')[:300]}")
    oracle = ncu_by_kernel(run_ncu(list(SASS_COUNTERS.values()), DEMOS[demo], binary, False, cwd, "ncu_sass"))
    brief = []
    problems = compare_sass(demo, ours, oracle, brief) + (rc != 0) + (not engine_ok)
    summary.append(f"SASS   {demo:28s} {'OK (all counters equal)' if not problems else f'{problems} problem(s)'}"
                   f"{'' if rc == 0 else f' [program exit {rc}]'}{'' if engine_ok else ' [engine not SassMetrics]'}")
    summary.extend(brief)
    return problems


def print_range_notes(records):
    """Prints the range profiler's notes; -> how many there were."""
    notes = [r for r in records if r["type"] == "note" and r.get("feature") == "range_profiler"]
    for r in notes:
        out(f"  gpufl note range_profiler {r.get('status')}: {r.get('reason', '')[:300]}")
    return len(notes)


def cold_l2_env(cold_l2):
    """The demos' environment for --cold-l2 (examples/cuda/cold_l2.hpp: an L2 eviction kernel before each
    scope), for gpufl's runs and ncu's alike."""
    return {"GPUFL_EXAMPLE_COLD_L2": "1"} if cold_l2 else {}


def ncu_launch_count(demo, cold_l2):
    """--launch-count for the demo: with --cold-l2 every measured launch follows one eviction launch."""
    count = DEMOS[demo]
    return count * 2 if count and cold_l2 else count


def range_part(build, gpufl, demo, cwd, summary, per_kernel=False, cold_l2=False):
    binary = os.path.join(build, "examples", "cuda", demo)
    demo_env = cold_l2_env(cold_l2)
    out(f"\n=== {demo}: range profiler, gpufl RangeProfiler vs ncu{' (cold L2 before each scope)' if cold_l2 else ''}")
    remove_logs(cwd, "range")
    rc, _, _ = run([binary], cwd, {"GPUFL_ENGINE": "RangeProfiler", "GPUFL_LOG_PATH": "range", **demo_env},
                   save_as="range.program")
    records = gpufl_records(gpufl, cwd, "range")
    check_engine(records, "RangeProfiler")
    print_range_notes(records)
    scopes = gpufl_ranges(records)
    # One ncu run per metric: a multi-metric run is replayed pass by pass with other cache contents than the
    # program's own run (DRAM bytes read 0.00-3.7x of ours that way on the H200); a single-pass run is not.
    # With --cold-l2 the cache-dependent metrics come from ncu's --cache-control all (the state the demo's eviction
    # gives gpufl): without flushing, ncu's second pass of the L2 hit rate finds the first pass's lines in L2.
    oracle = ncu_by_kernel(merge_launches(
        [run_ncu([m], ncu_launch_count(demo, cold_l2), binary, not (cold_l2 and m in CACHE_METRICS), cwd,
                 f"ncu_range_{i}", demo_env)
         for i, m in enumerate(RANGE_METRICS)]))
    brief = []
    flagged = compare_ranges(demo, scopes, oracle, brief)
    summary.append(f"RANGE  {demo:28s} {flagged} value(s) outside {RANGE_TOLERANCE:.0%} or scope(s) not compared"
                   f"{'' if rc == 0 else f' [program exit {rc}]'}; ratios gpufl/ncu (.sum per launch):")
    summary.extend(brief)
    if per_kernel:
        flagged += range_kernel_part(binary, gpufl, demo, cwd, oracle, summary, cold_l2)
    return flagged


def range_kernel_part(binary, gpufl, demo, cwd, oracle, summary, cold_l2=False):
    """The demo once more with per-kernel ranges, compared with the ncu launches of the per-scope part."""
    demo_env = cold_l2_env(cold_l2)
    out(f"\n=== {demo}: per-kernel ranges (GPUFL_RANGE_PER_KERNEL=1) vs ncu")
    remove_logs(cwd, "rangek")
    rc, _, _ = run([binary], cwd, {"GPUFL_ENGINE": "RangeProfiler", "GPUFL_RANGE_PER_KERNEL": "1",
                                   "GPUFL_LOG_PATH": "rangek", **demo_env}, save_as="rangek.program")
    records = gpufl_records(gpufl, cwd, "rangek")
    check_engine(records, "RangeProfiler")
    flushed = None if cold_l2 else ncu_by_kernel(merge_launches(  # cold: the oracle is flushed already
        [run_ncu([m], DEMOS[demo], binary, False, cwd, f"ncu_flush_{i}") for i, m in enumerate(CACHE_METRICS)]))
    return kernel_ranges_summary(demo, records, oracle, rc, summary, flushed)


def kernel_ranges_summary(demo, records, oracle, rc, summary, flushed=None):
    """Compares the per-kernel ranges of a run that exited with rc and appends its summary lines. The mode may
    fail on the GPU (no records with `kernel`, or a crash): that is reported, with the profiler's notes."""
    exit_text = "" if rc == 0 else f" [program exit {rc}]"
    waitns = f"{waitns_events(records)} WaitNs kernel_event(s)"
    kernels = gpufl_kernel_ranges(records)
    if not kernels:
        out(f"\n[{demo}] no range_counters record with `kernel`; the range profiler's notes:")
        if not print_range_notes(records):
            out("  (none)")
        summary.append(f"RANGE/K {demo:27s} no per-kernel ranges; {waitns}{exit_text}")
        return 1
    brief = []
    flagged = compare_kernel_ranges(demo, kernels, oracle, brief, flushed)
    summary.append(f"RANGE/K {demo:27s} {flagged} value(s) outside {RANGE_TOLERANCE:.0%} or kernel(s) not compared; "
                   f"{waitns}{exit_text}; ratios gpufl/ncu (one launch per range):")
    summary.extend(brief)
    return flagged


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--demos", default=",".join(DEMOS), help="comma-separated subset of " + ",".join(DEMOS))
    ap.add_argument("--skip-sass", action="store_true")
    ap.add_argument("--skip-range", action="store_true")
    ap.add_argument("--range-per-kernel", action="store_true",
                    help="part b also runs with GPUFL_RANGE_PER_KERNEL=1 and compares per-kernel ranges with ncu")
    ap.add_argument("--cold-l2", action="store_true",
                    help="part b: the demos evict L2 before each scope (GPUFL_EXAMPLE_COLD_L2=1), for gpufl and ncu")
    ap.add_argument("--self-test", action="store_true", help="check the parsers on fake data and exit")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.build or not args.out_dir:
        ap.error("BUILD_DIR and OUT_DIR are required")
    global out
    os.makedirs(args.out_dir, exist_ok=True)
    out = Tee(os.path.join(args.out_dir, "deep_truth.txt"))
    build = os.path.abspath(args.build)
    gpufl = os.path.join(build, "apps", "gpufl", "gpufl")
    t0 = time.perf_counter()
    out(f"deep_truth: build {build}, out {os.path.abspath(args.out_dir)}, {time.strftime('%Y-%m-%d %H:%M:%S')}")
    run([shutil.which("ncu") or "/usr/local/cuda/bin/ncu", "--version"], os.path.abspath(args.out_dir), timeout=60,
        save_as="ncu_version")
    summary, sass_problems = [], 0
    for demo in [d for d in args.demos.split(",") if d]:
        if demo not in DEMOS:
            out(f"unknown demo {demo}")
            sass_problems += 1
            continue
        cwd = os.path.abspath(os.path.join(args.out_dir, demo))
        os.makedirs(cwd, exist_ok=True)
        if not os.path.exists(os.path.join(build, "examples", "cuda", demo)):
            out(f"{demo}: binary missing in {build}/examples/cuda")
            summary.append(f"ALL    {demo:28s} binary missing")
            sass_problems += 1
            continue
        if not args.skip_sass:
            sass_problems += sass_part(build, gpufl, demo, cwd, summary)
        if not args.skip_range:
            range_part(build, gpufl, demo, cwd, summary, args.range_per_kernel, args.cold_l2)
    out("\n== summary")
    if args.cold_l2 and not args.skip_range:
        out("(range parts with --cold-l2: L2 evicted before each scope, in gpufl's and ncu's runs)")
    for line in summary:
        out(line)
    out(f"SASS: {'every counter equal to ncu' if not sass_problems else f'{sass_problems} problem(s)'}; "
        f"elapsed {time.perf_counter() - t0:.0f} s; details in {os.path.join(args.out_dir, 'deep_truth.txt')}")
    sys.exit(1 if sass_problems else 0)


# ---------------------------------------------------------------------------------------------- self test


def self_test():
    ncu_out = (
        "==PROF== Connected to process 1 (/x/matmul_tiling_demo)\n"
        "some program line with \"ID\" in it\n"
        "==PROF== Disconnected from process 1\n"
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
        '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n'
        '"0","1","m","h","matmul_naive(const float *, const float *, float *, int)","1","7","(32, 32, 1)",'
        '"(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed.sum","inst","11,272,608"\n'
        '"0","1","m","h","matmul_naive(const float *, const float *, float *, int)","1","7","(32, 32, 1)",'
        '"(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_thread_inst_executed.sum","inst",'
        '"360,723,456"\n'
        '"1","1","m","h","void matmul_tiled(const float *, const float *, float *, int)","1","7","(32, 32, 1)",'
        '"(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed.sum","inst","n/a"\n'
        '"2","1","m","h","matmul_naive(const float *, const float *, float *, int)","1","7","(32, 32, 1)",'
        '"(64, 64, 1)","0","9.0","Command line profiler metrics","smsp__sass_inst_executed.sum","inst","11272608"\n')
    csv_text = extract_ncu_csv(ncu_out)
    assert csv_text.startswith('"ID"'), csv_text[:50]
    launches = parse_ncu_csv(csv_text)
    assert [l[1] for l in launches] == ["matmul_naive", "matmul_tiled", "matmul_naive"], launches
    assert launches[0][2]["smsp__sass_inst_executed.sum"] == 11272608.0
    assert launches[0][2]["smsp__sass_thread_inst_executed.sum"] == 360723456.0
    assert launches[1][2]["smsp__sass_inst_executed.sum"] is None
    k = ncu_by_kernel(launches)
    assert len(k["matmul_naive"]) == 2 and k["matmul_naive"][1]["smsp__sass_inst_executed.sum"] == 11272608.0
    assert extract_ncu_csv("no csv here\n") == "" and parse_ncu_csv("") == []

    assert base_name("void matmul_tiled(const float *, int)") == "matmul_tiled"
    assert base_name("uniformWork(float*, float const*, int)") == "uniformWork"
    assert base_name("_Z3fooi") == "_Z3fooi"

    log = "\n".join(json.dumps(r) for r in [
        {"type": "kernel_def", "k": 1, "name": "_Z1fv", "demangled": "f()"},
        {"type": "kernel_def", "k": 2, "name": "_Z1gv", "demangled": "void g()"},
        {"type": "kernel_def", "k": 3, "name": "WaitNs", "demangled": "WaitNs"},
        {"type": "sass_metric", "func": "_Z1fv", "pc": 0, "launches": 5, "inst_executed": 50,
         "thread_inst_executed": 1600, "sectors_global": 0, "sectors_global_ideal": 0},
        {"type": "sass_metric", "func": "_Z1fv", "pc": 16, "launches": 5, "inst_executed": 100,
         "thread_inst_executed": 1000, "sectors_global": 40, "sectors_global_ideal": 10},
        # g: written in two batches (3 then 2 launches); pc 16 only ran in the first batch
        {"type": "sass_metric", "func": "_Z1gv", "pc": 0, "launches": 3, "inst_executed": 3,
         "thread_inst_executed": 96, "sectors_global": 0, "sectors_global_ideal": 0},
        {"type": "sass_metric", "func": "_Z1gv", "pc": 16, "launches": 3, "inst_executed": 3,
         "thread_inst_executed": 96, "sectors_global": 0, "sectors_global_ideal": 0},
        {"type": "sass_metric", "func": "_Z1gv", "pc": 0, "launches": 2, "inst_executed": 2,
         "thread_inst_executed": 64, "sectors_global": 0, "sectors_global_ideal": 0},
        {"type": "scope_path", "p": 1, "parent": 0, "name": "fs", "depth": 0},
        {"type": "scope_path", "p": 2, "parent": 0, "name": "mixed", "depth": 0},
        {"type": "scope_begin", "p": 1, "id": 10, "name": "fs"},
        {"type": "scope_begin", "p": 1, "id": 11, "name": "fs"},
        {"type": "scope_begin", "p": 2, "id": 12, "name": "mixed"},
        {"type": "kernel_event", "k": 1, "scope": 1}, {"type": "kernel_event", "k": 1, "scope": 1},
        {"type": "kernel_event", "k": 1, "scope": 1}, {"type": "kernel_event", "k": 1, "scope": 1},
        {"type": "kernel_event", "k": 3, "scope": 1, "dur_ns": 80000},
        {"type": "kernel_event", "k": 1, "scope": 2}, {"type": "kernel_event", "k": 2, "scope": 2},
        {"type": "range_counters", "range": "fs", "p": 1,
         "metrics": {"gpu__time_duration.sum": 2080000.0, "dram__bytes_read.sum": 200.0}},
        {"type": "range_counters", "range": "fs", "p": 1,
         "metrics": {"gpu__time_duration.sum": 2080000.0, "l1tex__t_sector_hit_rate.pct": 50.0, "x": None}},
    ]) + "\nnot json\n"
    records = parse_ndjson(log)
    sass = gpufl_sass(records)
    assert sass["f"]["launches"] == 5 and sass["f"]["uniform"] and sass["f"]["sums"]["inst_executed"] == 150
    assert sass["g"]["launches"] == 5 and not sass["g"]["uniform"], sass["g"]
    oracle = {"f": [{"smsp__sass_inst_executed.sum": 30.0, "smsp__sass_thread_inst_executed.sum": 520.0,
                     "smsp__sass_sectors_mem_global.sum": 8.0, "smsp__sass_sectors_mem_global_ideal.sum": 2.0}],
              "g": [{"smsp__sass_inst_executed.sum": 1.0, "smsp__sass_thread_inst_executed.sum": 32.0,
                     "smsp__sass_sectors_mem_global.sum": 0.0, "smsp__sass_sectors_mem_global_ideal.sum": 0.0}]}
    assert compare_sass("fake", {"f": sass["f"]}, {"f": oracle["f"]}) == 0
    assert compare_sass("fake", sass, oracle) == 2  # g: inst (8 over 5 launches vs 1) and thread_inst differ
    assert compare_sass("fake", {}, {"h": oracle["f"]}) == 1
    no_ideal = {k: v for k, v in oracle["f"][0].items() if "ideal" not in k}  # ncu printed n/a
    assert compare_sass("fake", {"f": sass["f"]}, {"f": [no_ideal]}) == 0
    no_inst = {k: v for k, v in oracle["f"][0].items() if k != "smsp__sass_inst_executed.sum"}
    assert compare_sass("fake", {"f": sass["f"]}, {"f": [no_inst]}) == 1  # any other n/a is a problem

    scopes = gpufl_ranges(records)
    assert scopes[1]["instances"] == 2 and scopes[1]["kernels"] == Counter({"f": 4}) and scopes[1]["waitns"] == 1
    assert scopes[1]["metrics"]["gpu__time_duration.sum"] == [2080000.0, 2080000.0]
    assert "x" not in scopes[1]["metrics"] and scopes[1]["ranges"] == 2
    assert set(single_kernel_scopes(scopes)) == {"f"}
    ncu_f = [{"gpu__time_duration.sum": 1000000.0, "dram__bytes_read.sum": 100.0, "l1tex__t_sector_hit_rate.pct": 50.0},
             {"gpu__time_duration.sum": 1000000.0, "dram__bytes_read.sum": 100.0, "l1tex__t_sector_hit_rate.pct": 50.0}]
    # per instance 2 launches: duration 2.08 ms / 2 = 1.04 ms vs 1.0 (ratio 1.04, inside 5%), 80 us extra per range
    brief = []
    assert compare_ranges("fake", scopes, {"f": ncu_f}, brief) == 0
    assert brief[0].startswith("    f (fs): time 1.04 (range time +80 us ~WaitNs) dram_rd 1.00"), brief
    ncu_f[0]["dram__bytes_read.sum"] = ncu_f[1]["dram__bytes_read.sum"] = 50.0
    assert compare_ranges("fake", scopes, {"f": ncu_f}) == 1

    # Per-kernel ranges: two launches of f, the range name once mangled, once demangled; one WaitNs event. They
    # stay out of the per-scope aggregation.
    kernel_records = parse_ndjson("\n".join(json.dumps(r) for r in [
        {"type": "kernel_def", "k": 1, "name": "_Z1fv", "demangled": "f()"},
        {"type": "kernel_def", "k": 3, "name": "WaitNs", "demangled": "WaitNs"},
        {"type": "kernel_event", "k": 1, "scope": 1}, {"type": "kernel_event", "k": 1, "scope": 1},
        {"type": "kernel_event", "k": 3, "scope": 1, "dur_ns": 80000},
        {"type": "range_counters", "range": "fs", "kernel": "_Z1fv", "p": 1,
         "metrics": {"gpu__time_duration.sum": 1020000.0, "dram__bytes_read.sum": 104.0}},
        {"type": "range_counters", "range": "fs", "kernel": "void f()", "p": 1,
         "metrics": {"gpu__time_duration.sum": 1000000.0, "l1tex__t_sector_hit_rate.pct": 50.5}},
    ]))
    assert gpufl_ranges(records + kernel_records)[1]["ranges"] == 2  # the per-scope records only
    kernels = gpufl_kernel_ranges(kernel_records)
    assert set(kernels) == {"f"} and kernels["f"]["ranges"] == 2 and kernels["f"]["scopes"] == Counter({"fs": 2})
    assert kernels["f"]["metrics"]["gpu__time_duration.sum"] == [1020000.0, 1000000.0]
    assert waitns_events(kernel_records) == 1 and not gpufl_kernel_ranges(records)
    ncu_f[0]["dram__bytes_read.sum"] = ncu_f[1]["dram__bytes_read.sum"] = 100.0
    # time 1.01 (median of 1.02 and 1.00 ms, not divided), dram_rd 1.04, l1_hit 1.01 (+0.5 pp): all inside 5%
    summary = []
    assert kernel_ranges_summary("fake", kernel_records, {"f": ncu_f, "g": ncu_f}, 0, summary) == 0
    assert summary[0].startswith("RANGE/K fake") and " 0 value(s) outside 5%" in summary[0], summary
    assert "1 WaitNs kernel_event(s)" in summary[0] and "program exit" not in summary[0], summary
    assert summary[1] == "    f (2 ranges): time 1.01 dram_rd 1.04 dram_wr - warps_active - l1_hit 1.01 (+0.5pp) " \
                         "l2_hit - tensor - sm_throughput -", summary
    ncu_f[0]["dram__bytes_read.sum"] = ncu_f[1]["dram__bytes_read.sum"] = 50.0
    brief = []
    assert compare_kernel_ranges("fake", kernels, {"f": ncu_f}, brief) == 1 and "dram_rd 2.08!" in brief[0], brief
    assert compare_kernel_ranges("fake", {"h": kernels["f"]}, {"f": ncu_f}) == 1  # ncu never saw h
    # The mode failed (no record with `kernel`) and the program crashed: reported, not raised.
    summary = []
    assert kernel_ranges_summary("fake", records, {"f": ncu_f}, -11, summary) == 1
    assert summary == [f"RANGE/K {'fake':27s} no per-kernel ranges; 1 WaitNs kernel_event(s) [program exit -11]"], \
        summary

    # The real H200 logs of the repository, when a gpufl build is around.
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, "..", "tests", "data", "h200", "sass_divergence")
    gpufl = next((g for g in sorted(glob.glob(os.path.join(here, "..", "build", "*", "apps", "gpufl", "gpufl")))
                  if os.access(g, os.X_OK)), None)
    if gpufl and os.path.exists(data + ".device.log"):
        p = subprocess.run([gpufl, "cat", data], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=60)
        real = gpufl_sass(parse_ndjson(p.stdout))
        print("real sass_divergence log (" + gpufl + "):")
        for k, v in sorted(real.items()):
            print(f"  {k:20s} launches {v['launches']} uniform {v['uniform']} rows {v['rows']} "
                  + " ".join(f"{c}={v['sums'][c] // max(v['launches'], 1):,}" for c in SASS_COUNTERS))
        assert {"uniformWork", "branchByWarpLane", "earlyExit"} <= set(real), set(real)
    # A pct metric at 0 on ncu's side and 0.3 on ours: no ratio, within 0.5 pp, not off.
    assert metric_row("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", [0.3],
                      [{"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": 0.0}], 1)[2] == 0
    print("self-test passed")


if __name__ == "__main__":
    main()
