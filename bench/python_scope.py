"""Cost of a Python scope, in ns per `with` (issue 19's target: <= 300 ns): a new gpufl.Scope per `with`, one
Scope object reused, the bare binding pair (_gpufl.scope_begin/scope_end), and an empty context manager for
scale. Runs a real session (no GPU needed: scopes are recorded either way). Medians of --rounds.
Usage: python bench/python_scope.py [--n 200000] [--rounds 7]"""
import argparse
import contextlib
import os
import statistics
import tempfile
import time

import gpufl
from gpufl import _gpufl as _C


def per_call_ns(body, n):
    t0 = time.perf_counter_ns()
    body(n)
    return (time.perf_counter_ns() - t0) / n


def new_scope(n):
    for _ in range(n):
        with gpufl.Scope("step", "bench"):
            pass


def reused_scope(n):
    s = gpufl.Scope("step", "bench")
    for _ in range(n):
        with s:
            pass


def binding_pair(n):
    begin, end = _C.scope_begin, _C.scope_end
    for _ in range(n):
        end(begin("step", "bench"))


def empty_with(n):
    cm = contextlib.nullcontext()
    for _ in range(n):
        with cm:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    cases = {"with gpufl.Scope(...)": new_scope, "with s (reused)": reused_scope,
             "scope_begin + scope_end": binding_pair, "with nullcontext()": empty_with}
    with tempfile.TemporaryDirectory() as d:
        gpufl.init("scope_bench", log_path=os.path.join(d, "s"), sampling_auto_start=False)
        try:
            times = {k: [] for k in cases}
            for _ in range(a.rounds):  # interleaved rounds
                for k, f in cases.items():
                    times[k].append(per_call_ns(f, a.n))
        finally:
            gpufl.shutdown()
    for k, v in times.items():
        print(f"{k:28s} {statistics.median(v):7.1f} ns  (min {min(v):.1f}, max {max(v):.1f}, {a.rounds} rounds)")


if __name__ == "__main__":
    main()
