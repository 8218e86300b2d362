#!/usr/bin/env python3
"""Slowdown of each gpufl profiling engine: whole-process wall time, side by side in one run.

Cases: the four CUDA demos (memory_coalescing, sass_divergence, matmul_tiling, occupancy_reduction; they link
gpufl) and the PyTorch loop examples/python/train_loop.py (no gpufl import: traced with `gpufl trace`).
Configurations, interleaved (round r runs every case in every configuration once), REPEATS rounds:
  plain               demos: GPUFL_DISABLE=1 (gpufl linked, records nothing); torch: python alone
  None                tracing only, no deep engine
  PcSampling          PC sampling, deep preset (period 2^12)
  PcSampling-light    PC sampling with GPUFL_PC_SAMPLING_PRESET=light (period 2^16)
  SassMetrics         SASS counters on the first 5 launches of each kernel
  PcSamplingWithSass  both, alternating launches
  RangeProfiler       counters per user scope (train_loop has no scopes: no ranges expected there)
Demos get GPUFL_ENGINE / GPUFL_LOG_PATH; torch runs as `gpufl trace -q --engine E -o PREFIX -- python3 ...`.
Prints per case and configuration: successful runs, median wall s, slowdown vs None and vs plain in %, for torch
the median of its own "N steps in X s" (timed steps, after warm-up), and the records the run wrote (gpufl cat:
kernel_event, pc_sample, sass_metric, range_counters; an engine that produced nothing reads "NO DATA").
Exit codes of every run are kept; failed runs are listed, not hidden, and left out of the medians.
Each program runs once untimed first (file cache, driver). The rounds stop early when the next one would pass
--budget-s (default 240 s, keeps the default run near 4 minutes on an H200); the output says so.
Logs of the first round stay in OUT_DIR/logs; later rounds' logs are deleted after counting.

With --ncu the demos also run under Nsight Compute collecting the same counters (ncu-sass: SassMetrics' four,
ncu-range: the range profiler's eight, ncu's default cache control and kernel replay): the reference for the deep
engines' fixed costs on short programs. --configs runs only the named engines (plus plain and None).

Usage: bench/engine_cost.py BUILD_DIR OUT_DIR [--repeats N] [--torch-steps S] [--budget-s T] [--skip-torch]
                            [--demos a,b] [--configs label,...] [--ncu]
       bench/engine_cost.py --self-test
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter

from bench_common import Tee, env_without, run_in_group
from deep_truth import RANGE_METRICS, SASS_COUNTERS

HERE = os.path.dirname(os.path.abspath(__file__))
DEMOS = ["memory_coalescing_demo", "sass_divergence_demo", "matmul_tiling_demo", "occupancy_reduction_demo"]
TORCH = "train_loop"
# label, engine (None: gpufl off), extra environment
CONFIGS = [
    ("plain", None, {}),
    ("None", "None", {}),
    ("PcSampling", "PcSampling", {}),
    ("PcSampling-light", "PcSampling", {"GPUFL_PC_SAMPLING_PRESET": "light"}),
    ("SassMetrics", "SassMetrics", {}),
    ("PcSamplingWithSass", "PcSamplingWithSass", {}),
    ("RangeProfiler", "RangeProfiler", {}),
]
# Nsight Compute on the demos for the same counters (--ncu), the reference for the deep engines' fixed costs:
# label -> ncu arguments. Not on the PyTorch loop: ncu replays every kernel of every step.
# The metric lists are deep_truth's, the comparison that checks those values.
NCU_CONFIGS = {
    "ncu-sass": ["--metrics", ",".join(SASS_COUNTERS.values())],
    "ncu-range": ["--metrics", ",".join(RANGE_METRICS)],
}
# the records each engine should produce
EXPECTED = {"PcSampling": ["pc_sample"], "SassMetrics": ["sass_metric"],
            "PcSamplingWithSass": ["pc_sample", "sass_metric"], "RangeProfiler": ["range_counters"]}
COUNTED = ["kernel_event", "pc_sample", "sass_metric", "range_counters"]
DEEP_NOTES = ("sass_metrics", "pc_sampling", "range_profiler", "deep_engines")
OUR_ENV = ("GPUFL_ENGINE", "GPUFL_DISABLE", "GPUFL_LOG_PATH", "GPUFL_PC_SAMPLING_PRESET")
DEMO_TIMEOUT_S = 120
TORCH_TIMEOUT_S = 300
STEPS_RE = re.compile(r"train_loop: (\d+) steps in ([0-9.]+) s")


out = print


def command_for(case, config, build, prefix, steps):
    """-> (argv, extra env) of one run."""
    label, engine, extra = config
    env = dict(extra)
    gpufl = os.path.join(build, "apps", "gpufl", "gpufl")
    if label in NCU_CONFIGS:
        env["GPUFL_DISABLE"] = "1"  # two CUPTI clients conflict
        ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
        return [ncu, "--clock-control", "none"] + NCU_CONFIGS[label] + [os.path.join(build, "examples", "cuda", case)], env
    if case == TORCH:
        program = [sys.executable, os.path.normpath(os.path.join(HERE, "..", "examples", "python", "train_loop.py")),
                   "--steps", str(steps)]
        if engine is None:
            return program, env
        return [gpufl, "trace", "-q", "--engine", engine, "-o", prefix, "--"] + program, env
    if engine is None:
        env["GPUFL_DISABLE"] = "1"
    else:
        env.update(GPUFL_ENGINE=engine, GPUFL_LOG_PATH=prefix)
    return [os.path.join(build, "examples", "cuda", case)], env


def show(cmd, env, cwd):
    env_text = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"(cd {shlex.quote(cwd)} && {env_text + ' ' if env_text else ''}{shlex.join(cmd)})"


def timed_run(cmd, env, cwd, timeout):
    """-> (exit code or 'timeout'/'error: ...', wall s, output text)"""
    rc, wall, text, _ = run_in_group(cmd, cwd, env_without(OUR_ENV, env), timeout, merge_stderr=True)
    return rc, wall, text


def parse_steps(text):
    """train_loop's own timing: seconds of the timed steps, or None."""
    m = STEPS_RE.search(text)
    return float(m.group(2)) if m else None


def count_records(gpufl, prefix, engine):
    """-> (Counter of record types in the latest session under prefix, deep-engine notes not 'on', and a line
    when the session says it ran another engine than asked)"""
    try:
        p = subprocess.run([gpufl, "cat", prefix], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=180)
    except (subprocess.TimeoutExpired, OSError) as e:
        return Counter({"cat_failed": 1}), [f"gpufl cat {prefix}: {e}"]
    return count_types(p.stdout.decode("utf-8", "replace"), engine)


def count_types(text, engine=None):
    types, notes = Counter(), []
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        t = r.get("type") if isinstance(r, dict) else None
        if t is None:
            continue
        types[t] += 1
        if t == "session_start" and types[t] == 1 and engine and r.get("engine") not in (None, engine):
            notes.append(f"session_start says engine {r.get('engine')}, asked for {engine}")
        if t == "note" and r.get("feature") in DEEP_NOTES and r.get("status") != "on":
            notes.append(f"{r.get('feature')} {r.get('status')}: {str(r.get('reason', ''))[:240]}")
    return types, notes


def remove_logs(prefix):
    for path in glob.glob(prefix + ".*log*"):
        os.remove(path)


def pct(a, b):
    return f"{100 * (a / b - 1):+.1f}" if a is not None and b else "-"


def span(values):
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}..{hi}"


def summarize(results, cases, out_fn=None, configs=None):
    """results[(case, label)] = list of {rc, wall, steps, counts}. Prints the table; returns the failure count."""
    out_fn = out_fn or out
    configs = configs or CONFIGS
    failures = 0
    head = (f"{'case':26s} {'engine':19s} {'ok':>5s} {'wall s':>8s} {'vs None%':>9s} {'vs plain%':>9s} "
            f"{'steps s':>8s} {'vs None%':>9s} {'vs plain%':>9s}  " + " ".join(f"{c:>14s}" for c in COUNTED))
    out_fn(head)
    for case in cases:
        med = {}
        for label, engine, _ in configs:
            runs = results.get((case, label), [])
            ok = [r for r in runs if r["rc"] == 0]
            med[label] = (statistics.median(r["wall"] for r in ok) if ok else None,
                          statistics.median(r["steps"] for r in ok if r["steps"] is not None)
                          if any(r["steps"] is not None for r in ok) else None)
        for label, engine, _ in configs:
            runs = results.get((case, label), [])
            if not runs:
                continue  # e.g. ncu rows on the PyTorch loop
            ok = [r for r in runs if r["rc"] == 0]
            failures += len(runs) - len(ok)
            wall, steps = med[label]
            counts = []
            for c in COUNTED:
                vals = [r["counts"].get(c, 0) for r in runs if r.get("counts") is not None]
                text = span(vals) if engine is not None else ""
                if case == TORCH and c == "range_counters" and vals and max(vals) == 0:
                    text = "0 (no scopes)"  # train_loop opens no gpufl scope: no range to profile
                elif engine is not None and c in EXPECTED.get(engine, []) and vals:
                    if max(vals) == 0:
                        text = "NO DATA"
                    elif min(vals) == 0:
                        text += f" ({vals.count(0)}x0!)"  # some runs of this engine wrote none
                counts.append(f"{text:>14s}")
            torch = case == TORCH
            out_fn(f"{case:26s} {label:19s} {len(ok):>2d}/{len(runs):<2d} "
                   f"{(f'{wall:.3f}' if wall is not None else 'FAILED'):>8s} {pct(wall, med['None'][0]):>9s} "
                   f"{pct(wall, med['plain'][0]):>9s} "
                   f"{(f'{steps:.3f}' if steps is not None else ('-' if not torch else 'n/a')):>8s} "
                   f"{(pct(steps, med['None'][1]) if torch else ''):>9s} "
                   f"{(pct(steps, med['plain'][1]) if torch else ''):>9s}  " + " ".join(counts))
            for r in runs:
                if r["rc"] != 0:
                    out_fn(f"    ! run {r['round']} exit {r['rc']}: {r['cmd']}")
                    for line in r["tail"].strip().splitlines()[-5:]:
                        out_fn("      " + line[:200])
    return failures


def chosen_configs(labels, with_ncu):
    """CONFIGS restricted to plain, None and the comma-separated labels (all when empty), plus the ncu rows."""
    wanted = {l for l in labels.split(",") if l}
    known = {c[0] for c in CONFIGS} | set(NCU_CONFIGS)
    unknown = wanted - known
    if unknown:
        sys.exit(f"engine_cost: unknown --configs {sorted(unknown)}; known: {', '.join(sorted(known))}")
    configs = [c for c in CONFIGS if not wanted or c[0] in wanted | {"plain", "None"}]
    ncu = [(label, None, {}) for label in NCU_CONFIGS if with_ncu or label in wanted]
    return configs + ncu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", nargs="?")
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--torch-steps", type=int, default=200)
    ap.add_argument("--budget-s", type=float, default=240, help="start no round that would end after this")
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--demos", default=",".join(DEMOS), help='comma-separated; "" for the PyTorch loop alone')
    ap.add_argument("--configs", default="",
                    help="comma-separated labels to run besides plain and None (default: every engine)")
    ap.add_argument("--ncu", action="store_true",
                    help="the demos also under Nsight Compute for the same counters: " + ", ".join(NCU_CONFIGS))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.build or not args.out_dir:
        ap.error("BUILD_DIR and OUT_DIR are required")
    global out
    os.makedirs(args.out_dir, exist_ok=True)
    out = Tee(os.path.join(args.out_dir, "engine_cost.txt"))
    build = os.path.abspath(args.build)
    gpufl = os.path.join(build, "apps", "gpufl", "gpufl")
    logs = os.path.abspath(os.path.join(args.out_dir, "logs"))
    os.makedirs(logs, exist_ok=True)
    cases = [d for d in args.demos.split(",") if d] + ([] if args.skip_torch else [TORCH])
    configs = chosen_configs(args.configs, args.ncu)
    t_start = time.perf_counter()
    out(f"engine_cost: build {build}, {time.strftime('%Y-%m-%d %H:%M:%S')}, repeats {args.repeats}, "
        f"torch steps {args.torch_steps}, budget {args.budget_s:.0f} s")

    out("warm-up (untimed): each program once, plain")
    for case in cases:
        cmd, env = command_for(case, CONFIGS[0], build, "", args.torch_steps)
        rc, wall, text = timed_run(cmd, env, logs, TORCH_TIMEOUT_S if case == TORCH else DEMO_TIMEOUT_S)
        out(f"  {show(cmd, env, logs)} -> exit {rc}, {wall:.2f} s")
        if rc != 0:
            out("    " + text[-1500:].replace("\n", "\n    "))

    results, notes, rounds_done = {}, {}, 0
    for rnd in range(args.repeats):
        t_round = time.perf_counter()
        for case in cases:
            for config in configs:
                label, engine, _ = config
                if label in NCU_CONFIGS and case == TORCH:
                    continue
                prefix = os.path.join(logs, f"{case}.{label}.r{rnd}")
                remove_logs(prefix)
                cmd, env = command_for(case, config, build, prefix, args.torch_steps)
                if rnd == 0 or case == TORCH:
                    out(f"$ {show(cmd, env, logs)}")
                rc, wall, text = timed_run(cmd, env, logs, TORCH_TIMEOUT_S if case == TORCH else DEMO_TIMEOUT_S)
                r = {"round": rnd, "rc": rc, "wall": wall, "steps": parse_steps(text) if case == TORCH else None,
                     "counts": None, "cmd": show(cmd, env, logs), "tail": text[-1200:]}
                # Counted outside the timing: every traced torch run, and each demo configuration once.
                if engine is not None and (case == TORCH or rnd == 0):
                    r["counts"], n = count_records(gpufl, prefix, engine)
                    if rnd == 0 and n:
                        notes[(case, label)] = n
                if rnd > 0:
                    remove_logs(prefix)
                results.setdefault((case, label), []).append(r)
                out(f"  round {rnd} {case} {label}: exit {rc}, {wall:.3f} s"
                    + (f", steps {r['steps']} s" if r["steps"] is not None else "")
                    + (f", records {dict((c, r['counts'].get(c, 0)) for c in COUNTED)}" if r["counts"] else ""))
        rounds_done += 1
        round_s = time.perf_counter() - t_round
        elapsed = time.perf_counter() - t_start
        if rnd + 1 < args.repeats and elapsed + round_s > args.budget_s:
            out(f"stopping after {rounds_done} round(s) of {args.repeats}: the next (~{round_s:.0f} s) would pass "
                f"the {args.budget_s:.0f} s budget (elapsed {elapsed:.0f} s)")
            break

    out(f"\n== engine cost: medians of {rounds_done} round(s); whole-process wall s; 'steps s' = train_loop's own "
        f"timing of {args.torch_steps} steps; record counts from `gpufl cat` (range over runs)")
    failures = summarize(results, cases, configs=configs)
    for (case, label), n in sorted(notes.items()):
        for line in n:
            out(f"  note {case} {label}: {line}")
    out(f"{failures} failed run(s); logs of round 0 in {logs}; elapsed {time.perf_counter() - t_start:.0f} s")
    sys.exit(1 if failures else 0)


def self_test():
    assert parse_steps("x\ntrain_loop: 200 steps in 3.1234 s (15.617 ms/step), loss 2.3\n") == 3.1234
    assert parse_steps("Traceback ...") is None
    types, notes = count_types('{"type":"pc_sample","func":"f"}\n{"type":"pc_sample"}\nnot json\n'
                               '{"type":"note","feature":"pc_sampling","status":"off","reason":"needs admin"}\n'
                               '{"type":"note","feature":"nvml","status":"off","reason":"x"}\n'
                               '{"type":"session_start","engine":"None"}\n{"type":"session_start","engine":"None"}\n',
                               "PcSampling")
    assert types["pc_sample"] == 2 and types["note"] == 2, types
    assert notes == ["pc_sampling off: needs admin", "session_start says engine None, asked for PcSampling"], notes
    cmd, env = command_for(TORCH, CONFIGS[3], "/b", "/o/p", 50)
    assert cmd[:7] == ["/b/apps/gpufl/gpufl", "trace", "-q", "--engine", "PcSampling", "-o", "/o/p"], cmd
    assert cmd[-2:] == ["--steps", "50"] and env == {"GPUFL_PC_SAMPLING_PRESET": "light"}
    cmd, env = command_for("sass_divergence_demo", CONFIGS[0], "/b", "/o/p", 50)
    assert cmd == ["/b/examples/cuda/sass_divergence_demo"] and env == {"GPUFL_DISABLE": "1"}
    cmd, env = command_for("sass_divergence_demo", CONFIGS[4], "/b", "/o/p", 50)
    assert env == {"GPUFL_ENGINE": "SassMetrics", "GPUFL_LOG_PATH": "/o/p"}
    results = {}
    for label, engine, _ in CONFIGS:
        for rnd, wall in enumerate([1.0, 1.2, 1.1]):
            counts = None if engine is None else Counter({"kernel_event": 10, "pc_sample": 5 if rnd else 0})
            results.setdefault((TORCH, label), []).append(
                {"round": rnd, "rc": 0, "wall": wall * (2 if label == "SassMetrics" else 1), "steps": wall / 2,
                 "counts": counts, "cmd": "c", "tail": ""})
    results[(TORCH, "RangeProfiler")][1]["rc"] = "timeout"
    lines = []
    assert summarize(results, [TORCH], lines.append) == 1
    text = "\n".join(lines)
    print(text)
    assert "+100.0" in text and "NO DATA" in text and "exit timeout" in text and "0 (no scopes)" in text
    sass_line = next(l for l in lines if " SassMetrics " in l)
    assert "NO DATA" in sass_line and "0..5" in sass_line  # sass_metric never written; pc_sample counts shown
    assert "0..5 (1x0!)" in next(l for l in lines if " PcSampling " in l)  # a PC sampling run without samples
    assert [c[0] for c in chosen_configs("PcSampling-light", False)] == ["plain", "None", "PcSampling-light"]
    assert [c[0] for c in chosen_configs("", True)][-2:] == ["ncu-sass", "ncu-range"]
    cmd, env = command_for("matmul_tiling_demo", ("ncu-sass", None, {}), "/b", "/o/p", 50)
    assert cmd[1:3] == ["--clock-control", "none"] and cmd[-1] == "/b/examples/cuda/matmul_tiling_demo", cmd
    assert env == {"GPUFL_DISABLE": "1"}
    print("self-test passed")


if __name__ == "__main__":
    main()
