#!/usr/bin/env python3
"""Where a traced run's time went, from its log: session start -> first kernel (start-up),
first -> last kernel (the program's GPU work), last kernel -> session end (shutdown), and the
deep engines' own account (the deep_engine_time note). Used by scripts/gpu-run.sh torch-engines
to tell start-up cost from shutdown cost in deep modes.

Usage: bench/log_phases.py PREFIX [PREFIX ...]   (reads PREFIX.device.log)
"""
import json
import sys


def phases(device_log):
    start = end = first = last = prev = None
    notes = []
    with open(device_log, encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if '"type":"kernel_event"' not in line and '"type":"session_' not in line \
                    and '"deep_engine_time"' not in line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise SystemExit(f"{device_log}:{line_no}: not JSON ({e})")
            kind = rec.get("type")
            if kind == "session_start":
                start = rec["start_ns"]
            elif kind == "session_end":
                end = rec["end_ns"]
            elif kind == "kernel_event":
                # Absolute start at resynchronisation points, else a difference (docs/log-format.md).
                prev = rec["start_ns"] if "start_ns" in rec else prev + rec["dt_ns"]
                first = prev if first is None else min(first, prev)
                last = max(last or 0, prev + rec["dur_ns"])
            elif kind == "note":
                notes.append(rec["reason"])
    return start, first, last, end, notes


def seconds(a, b):
    return "?" if a is None or b is None else f"{(b - a) / 1e9:.2f} s"


def main(prefixes):
    if not prefixes:
        raise SystemExit(__doc__)
    for prefix in prefixes:
        start, first, last, end, notes = phases(prefix + ".device.log")
        print(f"{prefix}: start-up {seconds(start, first)}, kernels {seconds(first, last)}, "
              f"shutdown {seconds(last, end)}")
        for n in notes:
            print(f"  {n}")


if __name__ == "__main__":
    main(sys.argv[1:])
