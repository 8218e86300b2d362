#!/usr/bin/env python3
"""Throughput and memory of `gpufl agent` on a backlog: ships every log under LOGS to a sink receiver on
loopback (which decompresses and counts the lines) and reports records/s and peak RSS of the agent.

    bench/agent_throughput.py --exe build/rel/apps/gpufl/gpufl LOGS [--cpu 0] [--spool-max-bytes N]

Make a backlog with bench's generator, e.g.
    build/rel/bench/gpufl_gen_session --prefix /tmp/agbench/logs/train --kernels 1000000 --rotate-bytes 16777216
--cpu pins the agent (all its threads) to one core with taskset, so records/s is per core.
"""
from __future__ import annotations

import argparse
import gzip
import http.server
import os
import resource
import shutil
import subprocess
import tempfile
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("logs")
    ap.add_argument("--exe", required=True)
    ap.add_argument("--cpu", type=int, default=0, help="core to pin the agent to (-1: no pinning)")
    ap.add_argument("--spool-max-bytes", type=int, default=256 << 20)
    ap.add_argument("--batch-bytes", type=int, default=4 << 20)
    args = ap.parse_args()

    counted = {"lines": 0, "bytes": 0, "posts": 0}
    lock = threading.Lock()

    class Sink(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            text = gzip.decompress(body)
            with lock:
                counted["lines"] += text.count(b"\n")
                counted["bytes"] += len(body)
                counted["posts"] += 1
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state = tempfile.mkdtemp(prefix="gpufl-agent-bench-")
    cmd = [args.exe, "agent", "--to", f"http://127.0.0.1:{server.server_address[1]}/ingest", "--state-dir", state,
           "--listen", "off", "--exit-when-drained", "--poll-ms", "50", "--batch-bytes", str(args.batch_bytes),
           "--spool-max-bytes", str(args.spool_max_bytes), args.logs]
    if args.cpu >= 0 and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(args.cpu)] + cmd
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read()
    server.shutdown()
    shutil.rmtree(state, ignore_errors=True)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"agent failed:\n{err}")
    cpu = ru.ru_utime + ru.ru_stime
    lines = counted["lines"]
    print(f"records shipped      {lines}")
    print(f"batches              {counted['posts']} ({counted['bytes'] / 1e6:.1f} MB gzip)")
    print(f"wall                 {wall:.2f} s  -> {lines / wall:,.0f} records/s")
    print(f"agent CPU            {cpu:.2f} s (user {ru.ru_utime:.2f}, sys {ru.ru_stime:.2f}) -> "
          f"{lines / cpu:,.0f} records per CPU-second")
    print(f"agent peak RSS       {ru.ru_maxrss / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
