#!/usr/bin/env python3
"""The soak (issue 35): a CUDA graph of tiny kernels replayed until --kernels kernel records have gone through
`gpufl trace`, and what that costs and whether the trace stays true, measured against the same replays plain and
under the bare-CUPTI floor. Written for the GPU machine (scripts/gpu-run.sh soak); prints one summary and writes
soak.json into OUTDIR.

Runs, one after another (each bounded by --timeout seconds):
  plain   the graph replays alone                                      (wall time, RSS and GPU memory by tenth)
  floor   the same under bench/floor_inject (CUPTI's records counted)   (CUPTI's own part of the slowdown)
  gpufl   the same under `gpufl trace`, health records every 5 s        (gpufl's part; the log's figures)
  mixed   half the kernels under `gpufl trace` with a PyTorch loop traced beside it for the same time (--torch)
  bad     a fifth of the kernels under `gpufl trace` with CUPTI's device buffer pool made small (--bad): the
          checks must say so (invalid or dropped records in Trace Health)
Then `gpufl report --json` of each traced log, timed, with its peak memory.

Measured (the issue's list): records written against launched with every difference declared (session_end's
drops), invalid timestamps (the checks' violations), gpufl's CPU per 1,000 kernels (health records), the process's
resident memory and GPU memory from the first to the last tenth, log bytes per kernel, the report's time and
memory, and the slowdown split into CUPTI's part (floor / plain) and gpufl's (gpufl / floor).

Usage: soak_report.py BUILD OUTDIR [--kernels N] [--nodes K] [--torch] [--bad] [--timeout S] [--budget S]
                      [--python PY]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

TENTH = re.compile(r"tenth (\d+): (?:kernels|steps) (\d+) t_s ([0-9.]+) rss_bytes (\d+) gpu_used_bytes (\d+)")
SOAK_END = re.compile(r"graph_soak: (\d+) replays of (\d+) kernels, (\d+) kernels launched in the loop "
                      r"\(\+(\d+) warm-up, (\d+) counted on the GPU\) in ([0-9.]+) s")
FLOOR = re.compile(r"\[floor\] records: (\d+) kernels with times, (\d+) without, (\d+) other, (\d+) dropped")
TORCH_END = re.compile(r"train_loop: (\d+) steps in ([0-9.]+) s")


def run(cmd, out_path, env=None, timeout=300):
    """Runs cmd with its output in out_path; (exit status, wall s, output text, peak RSS bytes of the child)."""
    t0 = time.perf_counter()
    with open(out_path, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.perf_counter() > deadline:
                os.killpg(p.pid, 9)
                pid, status, usage = os.wait4(p.pid, 0)
                status = 124 << 8
                break
            time.sleep(0.05)
    wall = time.perf_counter() - t0
    with open(out_path, errors="replace") as f:
        text = f.read()
    return os.waitstatus_to_exitcode(status), wall, text, usage.ru_maxrss * 1024


def tenths(text):
    return [dict(zip(("tenth", "count", "t_s", "rss_bytes", "gpu_used_bytes"), map(float, m)))
            for m in TENTH.findall(text)]


def change(rows, key):
    """(first tenth, last tenth, change in %) of a column; None without two tenths."""
    if len(rows) < 2 or not rows[0][key]:
        return None
    first, last = rows[0][key], rows[-1][key]
    return {"first": first, "last": last, "change_pct": round(100.0 * (last - first) / first, 2)}


def log_bytes(prefix):
    """Bytes of the log's files: <prefix>.<channel>.log and its rotated segments (.NNNNNN.log[.zst])."""
    d, base = os.path.split(prefix)
    return sum(os.path.getsize(os.path.join(d or ".", f)) for f in os.listdir(d or ".")
               if f.startswith(base + ".") and (f.endswith(".log") or f.endswith(".log.zst")))


def health_records(gpufl, prefix, out_dir, name):
    """The log's health records (gpufl cat of the device channel, filtered)."""
    path = os.path.join(out_dir, name + ".health.ndjson")
    with open(path, "w") as out:
        cat = subprocess.Popen([gpufl, "cat", "--channel", "device", prefix], stdout=subprocess.PIPE, text=True)
        records = []
        for line in cat.stdout:
            if '"type":"health"' in line:
                out.write(line)
                records.append(json.loads(line))
        cat.wait(timeout=300)
    return records


def report(gpufl, prefix, out_dir, name, timeout):
    rc, wall, text, rss = run([gpufl, "report", "--json", prefix], os.path.join(out_dir, name + ".report.json"),
                              timeout=timeout)
    data = None
    if rc == 0:
        try:
            data = json.loads(text)
        except ValueError:
            pass
    subprocess.run([gpufl, "report", prefix], stdout=open(os.path.join(out_dir, name + ".report.txt"), "w"),
                   stderr=subprocess.STDOUT, timeout=timeout)
    return {"exit": rc, "wall_s": round(wall, 3), "max_rss_bytes": rss}, data


def traced_figures(gpufl, prefix, out_dir, name, launched, timeout):
    """Everything the issue asks of one traced log."""
    rep, data = report(gpufl, prefix, out_dir, name, timeout)
    fig = {"report": rep}
    if data is None:
        fig["error"] = "gpufl report failed"
        return fig
    written = data["kernels"]["launches"]
    dropped = data.get("collection", {}).get("dropped", {})
    health = data.get("trace_health", {})
    declared = {k: v for k, v in dropped.items() if v}
    # Kernel records that never became kernel_event lines, each with its reason.
    lost = sum(dropped.get(k, 0) for k in ("activity", "untimed_kernels", "invalid_times", "write"))
    fig["records"] = {"launched": launched, "written": written, "declared_drops": declared,
                      "unexplained": launched - written - lost if launched is not None else None}
    fig["trace_health"] = {"healthy": health.get("healthy"), "checked": health.get("checked"),
                           "issues": [(i["kind"], i["count"]) for i in health.get("issues", [])],
                           "cupti_issues": health.get("cupti_issues", [])}
    cpu = sum(health.get("cpu_ns", {}).values())
    fig["gpufl_cpu"] = {"by_thread_ns": health.get("cpu_ns", {}),
                        "us_per_1000_kernels": round(cpu / 1e3 / written * 1000, 3) if written else None,
                        "pct_of_a_core": health.get("cpu_pct")}
    bytes_on_disk = log_bytes(prefix)
    fig["log_bytes"] = {"total": bytes_on_disk, "per_kernel": round(bytes_on_disk / written, 2) if written else None}
    recs = health_records(gpufl, prefix, out_dir, name)
    if len(recs) >= 2:
        n = len(recs)
        first, last = recs[max(0, n // 10 - 1)], recs[-1]
        fig["health_series"] = {
            "records": n,
            "buffer_bytes": [r.get("buffer_bytes") for r in recs],
            "activity_buffers_peak": last.get("activity_buffers_peak"),
            "rss_bytes_first_tenth": first.get("rss_bytes"), "rss_bytes_last": last.get("rss_bytes"),
            "cpu_pct_by_period": [round(r.get("cpu_pct", 0), 2) for r in recs],
            "records_per_s": [round(r.get("records_per_s", 0)) for r in recs],
        }
    return fig


def graph_run(label, args, out_dir, env, prefix_cmd=(), kernels=None):
    soak = os.path.join(args.build, "tests", "gpu", "soak", "gpufl_graph_soak")
    cmd = list(prefix_cmd) + [soak, "--kernels", str(kernels or args.kernels), "--nodes", str(args.nodes),
                              "--seconds", str(args.timeout - 30)]
    rc, wall, text, rss = run(cmd, os.path.join(out_dir, label + ".out.txt"), env=env, timeout=args.timeout)
    m = SOAK_END.search(text)
    res = {"exit": rc, "wall_s": round(wall, 3), "max_rss_bytes": rss, "tenths": tenths(text)}
    if m:
        replays, nodes, loop_kernels, warmup, counted, loop_s = m.groups()
        res.update(launched=int(loop_kernels) + int(warmup), loop_kernels=int(loop_kernels),
                   counted_on_gpu=int(counted), loop_s=float(loop_s))
    if (f := FLOOR.search(text)):
        res["floor_records"] = dict(zip(("kernels_timed", "kernels_untimed", "other", "dropped"), map(int, f.groups())))
    res["rss"] = change(res["tenths"], "rss_bytes")
    res["gpu_memory"] = change(res["tenths"], "gpu_used_bytes")
    print(f"  {label}: exit {rc}, {wall:.1f} s wall, loop {res.get('loop_s')} s, launched {res.get('launched')}",
          flush=True)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--kernels", type=int, default=50_000_000)
    ap.add_argument("--nodes", type=int, default=64)
    ap.add_argument("--timeout", type=int, default=150, help="per run, seconds")
    ap.add_argument("--torch", action="store_true", help="the mixed run: a PyTorch loop beside the replays")
    ap.add_argument("--bad", action="store_true", help="the bad-condition run: CUPTI's device buffers small")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for everything: the mixed and bad runs are skipped when too little is left")
    args = ap.parse_args()
    started = time.perf_counter()

    def left():
        return float("inf") if args.budget is None else args.budget - (time.perf_counter() - started)
    os.makedirs(args.out, exist_ok=True)
    gpufl = os.path.join(args.build, "apps", "gpufl", "gpufl")
    floor = os.path.join(args.build, "bench", "libgpufl_floor_inject.so")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, GPUFL_HEALTH_PERIOD_S="5")
    result = {"kernels": args.kernels, "nodes": args.nodes}

    print(f"soak: {args.kernels:,} kernels in graphs of {args.nodes}", flush=True)
    plain = graph_run("plain", args, args.out, env)
    floor_run = graph_run("floor", args, args.out,
                          dict(env, CUDA_INJECTION64_PATH=floor, FLOOR_COUNT_RECORDS="1"))
    prefix = os.path.join(args.out, "graph")
    traced = graph_run("gpufl", args, args.out, env, prefix_cmd=[gpufl, "trace", "-q", "-o", prefix, "--"])
    result["runs"] = {"plain": plain, "floor": floor_run, "gpufl": traced}
    result["gpufl"] = traced_figures(gpufl, prefix, args.out, "graph", traced.get("launched"), args.timeout)
    if all("loop_s" in r for r in (plain, floor_run, traced)):
        p, f, g = plain["loop_s"], floor_run["loop_s"], traced["loop_s"]
        result["slowdown"] = {"total": round(g / p, 3), "cupti_floor": round(f / p, 3), "gpufl_over_floor": round(g / f, 3),
                              "us_per_kernel": {"plain": round(1e6 * p / plain["loop_kernels"], 4),
                                                "floor": round(1e6 * f / floor_run["loop_kernels"], 4),
                                                "gpufl": round(1e6 * g / traced["loop_kernels"], 4)}}

    save(args.out, result)
    # The traced run's time, a yardstick for what the later runs take (with their reports).
    stage_s = time.perf_counter() - started
    if args.torch and left() < stage_s * 0.8:
        result["skipped_mixed"] = f"{left():.0f} s left of the budget"
        args.torch = False
    if args.torch:
        half = args.kernels // 2
        tprefix = os.path.join(args.out, "torch")
        seconds = max(10, traced.get("loop_s", 60) / 2)
        torch_cmd = [gpufl, "trace", "-q", "-o", tprefix, "--", args.python,
                     os.path.join(here, "..", "..", "..", "examples", "python", "train_loop.py"),
                     "--seconds", f"{seconds:.0f}"]
        torch_out = open(os.path.join(args.out, "torch.out.txt"), "w")
        torch_p = subprocess.Popen(torch_cmd, stdout=torch_out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
        mixed = graph_run("mixed", args, args.out, env, kernels=half,
                          prefix_cmd=[gpufl, "trace", "-q", "-o", os.path.join(args.out, "mixed"), "--"])
        try:
            torch_p.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(torch_p.pid, 9)
            torch_p.wait()
        torch_out.close()
        ttext = open(os.path.join(args.out, "torch.out.txt"), errors="replace").read()
        tm = TORCH_END.search(ttext)
        trows = tenths(ttext)
        result["runs"]["mixed"] = mixed
        result["mixed"] = {"graph": traced_figures(gpufl, os.path.join(args.out, "mixed"), args.out, "mixed",
                                                   mixed.get("launched"), args.timeout),
                           "torch": {"exit": torch_p.returncode, "steps": int(tm.group(1)) if tm else None,
                                     "rss": change(trows, "rss_bytes"),
                                     "report": traced_figures(gpufl, tprefix, args.out, "torch", None, args.timeout)}}

    save(args.out, result)
    if args.bad and left() < stage_s * 0.4:
        result["skipped_bad"] = f"{left():.0f} s left of the budget"
        args.bad = False
    if args.bad:
        bad_env = dict(env, GPUFL_CUPTI_DEVICE_BUFFERS="1", GPUFL_CUPTI_DEVICE_BUFFER_BYTES="65536")
        bprefix = os.path.join(args.out, "bad")
        bad = graph_run("bad", args, args.out, bad_env, kernels=max(args.kernels // 5, 1_000_000),
                        prefix_cmd=[gpufl, "trace", "-q", "-o", bprefix, "--"])
        result["runs"]["bad"] = bad
        result["bad"] = traced_figures(gpufl, bprefix, args.out, "bad", bad.get("launched"), args.timeout)

    save(args.out, result)
    summary(result)


def save(out_dir, result):
    """soak.json, rewritten after each stage: a run cut short by the device's time limit keeps what was done."""
    with open(os.path.join(out_dir, "soak.json"), "w") as f:
        json.dump(result, f, indent=1)


def summary(r):
    print("\n=== soak summary (soak.json has everything)")
    g = r.get("gpufl", {})
    rec = g.get("records", {})
    print(f"records: launched {rec.get('launched')}, written {rec.get('written')}, declared drops "
          f"{rec.get('declared_drops')}, unexplained {rec.get('unexplained')}")
    print(f"trace health: {g.get('trace_health')}")
    print(f"gpufl CPU: {g.get('gpufl_cpu')}")
    for name, run in r.get("runs", {}).items():
        print(f"{name}: rss {run.get('rss')}, gpu memory {run.get('gpu_memory')}, max rss {run.get('max_rss_bytes')}")
    print(f"log bytes: {g.get('log_bytes')}")
    print(f"report of the whole soak: {g.get('report')}")
    print(f"slowdown: {r.get('slowdown')}")
    if "health_series" in g:
        hs = g["health_series"]
        print(f"health: {hs['records']} records, buffer_bytes {hs['buffer_bytes'][:3]}..{hs['buffer_bytes'][-3:]}, "
              f"activity buffers peak {hs['activity_buffers_peak']}, rss {hs['rss_bytes_first_tenth']} -> "
              f"{hs['rss_bytes_last']}, cpu % by period {hs['cpu_pct_by_period']}")
    if "mixed" in r:
        print(f"mixed: graph {r['mixed']['graph'].get('trace_health')}, torch steps {r['mixed']['torch']['steps']}, "
              f"torch health {r['mixed']['torch']['report'].get('trace_health')}")
    if "bad" in r:
        b = r["bad"]
        print(f"bad condition: trace health {b.get('trace_health')}, records {b.get('records')}")


if __name__ == "__main__":
    main()
