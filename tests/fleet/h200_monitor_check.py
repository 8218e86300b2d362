#!/usr/bin/env python3
"""On a GPU host (the H200): `gpufl monitor` beside a PyTorch training loop under `gpufl trace`, its /metrics
compared with nvidia-smi read at the same moment. Prints one line per (GPU, field) and exits 1 when a value that
both should agree on differs beyond the tolerance below (utilization and power move within a second: looser).
Usage: h200_monitor_check.py PATH/TO/gpufl PATH/TO/train_loop.py OUT_DIR   (scripts/gpu-run.sh step `monitor`)
GPUFL_MONITOR_ARGS adds monitor arguments (a dry run without a GPU: --nvml-script and a fake nvidia-smi in PATH).
"""
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

# nvidia-smi field -> (gpufl metric, factor from the nvidia-smi unit to the metric's, tolerance (abs, rel)).
FIELDS = {
    "memory.total": ("gpufl_gpu_memory_total_bytes", 2**20, (2**20, 0)),
    "memory.used": ("gpufl_gpu_memory_used_bytes", 2**20, (256 * 2**20, 0.05)),
    "temperature.gpu": ("gpufl_gpu_temperature_celsius", 1, (3, 0)),
    "power.draw": ("gpufl_gpu_power_watts", 1, (30, 0.25)),
    "power.limit": ("gpufl_gpu_power_limit_watts", 1, (1, 0)),
    "clocks.sm": ("gpufl_gpu_sm_clock_hertz", 1e6, (0, 0.15)),
    "clocks.mem": ("gpufl_gpu_memory_clock_hertz", 1e6, (0, 0.02)),
    "utilization.gpu": ("gpufl_gpu_utilization_ratio", 0.01, (0.5, 0)),  # a moving target: sanity only
}


def parse(text):
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        series, value = line.rsplit(" ", 1)
        name = series.split("{", 1)[0]
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', series))
        out.setdefault(name, []).append((labels, float(value)))
    return out


def smi(query, kind="--query-gpu"):
    r = subprocess.run(["nvidia-smi", f"{kind}={query}", "--format=csv,noheader,nounits"], capture_output=True,
                       text=True)
    return [[c.strip() for c in l.split(",")] for l in r.stdout.strip().splitlines()] if r.returncode == 0 else None


def main():
    gpufl, train, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    mon = subprocess.Popen([gpufl, "monitor", "--interval", "1000", "--listen", "127.0.0.1:0",
                            "--prefix", os.path.join(out, "monitor"),
                            *os.environ.get("GPUFL_MONITOR_ARGS", "").split()], stderr=subprocess.PIPE, text=True)
    port = None
    for line in mon.stderr:
        print("monitor:", line.rstrip())
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/metrics", line)
        if m:
            port = int(m.group(1))
            break
    if port is None:
        print("FAIL: monitor did not start")
        return 1
    train_p = subprocess.Popen([gpufl, "trace", "-q", "-o", os.path.join(out, "torch"), "--", sys.executable,
                                train, "--steps", "1000000"], stdout=open(os.path.join(out, "train.txt"), "w"),
                               stderr=subprocess.STDOUT)
    # Until the loop holds GPU memory (CUDA started): it then trains until stopped after the rounds.
    for _ in range(60):
        if smi("pid", "--query-compute-apps") or train_p.poll() is not None:
            break
        time.sleep(1)
    time.sleep(3)
    failures, rounds = 0, 0
    energy = {}
    for rnd in range(5):
        if train_p.poll() is not None and rnd > 0:
            break
        rows = smi(",".join(["uuid"] + list(FIELDS))) or []
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
        apps = smi("pid,gpu_uuid,used_memory", "--query-compute-apps") or []
        with open(os.path.join(out, f"metrics_{rnd}.txt"), "w") as f:
            f.write(body)
        m = parse(body)
        rounds += 1
        print(f"--- round {rnd}: nvml_up={m.get('gpufl_nvml_up')}")
        for row in rows:
            uuid = row[0]
            for (field, (metric, factor, (tol_abs, tol_rel))), raw in zip(FIELDS.items(), row[1:]):
                mine = [v for labels, v in m.get(metric, []) if labels.get("uuid") == uuid]
                try:
                    theirs = float(raw) * factor
                except ValueError:
                    print(f"  {uuid[:12]} {field:16} nvidia-smi '{raw}' (not a number): skipped")
                    continue
                if not mine:
                    print(f"  {uuid[:12]} {field:16} nvidia-smi {theirs:.6g}  gpufl MISSING")
                    failures += 1
                    continue
                ok = abs(mine[0] - theirs) <= max(tol_abs, tol_rel * abs(theirs))
                failures += not ok
                print(f"  {uuid[:12]} {field:16} nvidia-smi {theirs:.6g}  gpufl {mine[0]:.6g}  "
                      f"{'ok' if ok else 'DIFF'}")
            e = [v for labels, v in m.get("gpufl_gpu_energy_joules_total", []) if labels.get("uuid") == uuid]
            if e:
                if uuid in energy and e[0] < energy[uuid]:
                    print(f"  {uuid[:12]} energy went backwards: {energy[uuid]} -> {e[0]}")
                    failures += 1
                energy[uuid] = e[0]
            throttle = {l["reason"]: v for l, v in m.get("gpufl_gpu_throttle_reason", []) if l.get("uuid") == uuid}
            pcie = [v for l, v in m.get("gpufl_gpu_pcie_receive_bytes_per_second", []) if l.get("uuid") == uuid]
            print(f"  {uuid[:12]} throttle active: {[r for r, v in throttle.items() if v]}  pcie rx B/s: {pcie}")
        procs = {(l["uuid"], l["pid"]): v for l, v in m.get("gpufl_gpu_process_memory_used_bytes", [])}
        for pid, uuid, used in apps:
            mine = procs.get((uuid, pid))
            theirs = float(used) * 2**20 if used.replace(".", "").isdigit() else None
            ok = mine is not None and (theirs is None or abs(mine - theirs) <= max(64 * 2**20, 0.05 * theirs))
            failures += not ok
            print(f"  process {pid} on {uuid[:12]}: nvidia-smi {theirs}  gpufl {mine}  {'ok' if ok else 'DIFF'}")
        time.sleep(2)
    train_p.send_signal(signal.SIGINT)  # gpufl trace passes it to the loop
    try:
        train_p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        train_p.kill()
        train_p.wait()
    mon.send_signal(signal.SIGTERM)
    rc = mon.wait(timeout=15)
    # The loop ends by the SIGINT above: Python's KeyboardInterrupt exits 1 (130 if it dies of the signal).
    print(f"monitor exit {rc} after SIGTERM; training exit {train_p.returncode} after SIGINT (1 or 130 expected); "
          f"{rounds} rounds, {failures} diffs")
    return 0 if failures == 0 and rc == 0 and rounds > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
