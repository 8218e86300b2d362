#!/usr/bin/env python3
"""Load rate of the Python analyzer: kernel events per second from NDJSON files into pandas DataFrames.

    python python/bench/load_rate.py PREFIX [--repeats 3]
    python python/bench/load_rate.py --generate BUILD/bench/gpufl_gen_session --kernels 1000000

With --generate, a synthetic session is written first with the bench tool gpufl_gen_session (built with
-DGPUFL_BUILD_BENCH=ON) into a temporary directory. Prints the time of the C++ read alone (load_session: files ->
numpy columns), of the whole GpuFlightSession (+ pandas DataFrames and joins), and the rates.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix", nargs="?")
    ap.add_argument("--generate", metavar="GEN_SESSION", help="path of gpufl_gen_session")
    ap.add_argument("--kernels", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    from gpufl import _gpufl
    from gpufl.analyzer import GpuFlightSession

    tmp = None
    prefix = args.prefix
    if args.generate:
        tmp = tempfile.TemporaryDirectory(prefix="gpufl-load-")
        prefix = os.path.join(tmp.name, "synthetic")
        subprocess.run([args.generate, "--prefix", prefix, "--kernels", str(args.kernels), "--rotate-bytes", "0"],
                       check=True, stdout=sys.stderr)
    if not prefix:
        ap.error("give a PREFIX or --generate")
    size = sum(os.path.getsize(f"{prefix}.{c}.log") for c in ("device", "scope", "system")
               if os.path.exists(f"{prefix}.{c}.log"))

    raw, full = [], []
    n = 0
    for _ in range(args.repeats):
        t = time.perf_counter()
        out = _gpufl.load_session(prefix)
        raw.append(time.perf_counter() - t)
        n = len(out["tables"]["kernels"]["start_ns"])
        del out
        t = time.perf_counter()
        s = GpuFlightSession(os.path.dirname(prefix) or ".", log_prefix=os.path.basename(prefix))
        full.append(time.perf_counter() - t)
        assert len(s.kernels) == n
        del s
    r, f = min(raw), min(full)
    print(f"{n:,} kernel events, {size / 1e6:.1f} MB of NDJSON")
    print(f"C++ reader -> numpy columns: {r:.3f} s  ({n / r / 1e6:.2f} M kernel events/s)")
    print(f"GpuFlightSession (pandas):   {f:.3f} s  ({n / f / 1e6:.2f} M kernel events/s, "
          f"{size / f / 1e6:.0f} MB/s)")


if __name__ == "__main__":
    main()
