"""Pieces the `gpufl agent` tests share: a receiver on loopback, a log writer that rotates and compresses the
way gpufl's does (docs/log-format.md), and the agent as a child process."""
from __future__ import annotations

import gzip
import http.server
import json
import os
import pathlib
import re
import shutil
import subprocess
import threading
import time
import urllib.request

CHANNELS = ("device", "scope", "system")


def gpufl_exe() -> str:
    """The `gpufl` binary: $GPUFL_EXE (a build tree's) or the one bundled with the installed package."""
    if os.environ.get("GPUFL_EXE"):
        return os.environ["GPUFL_EXE"]
    from gpufl import _cli

    return _cli.executable()


class Receiver:
    """An HTTP receiver on 127.0.0.1: keeps every batch's lines, and misbehaves on request
    (`fail_next` 500s, `throttle_next` 429s with Retry-After, `hang_next` requests that never answer in time)."""

    def __init__(self, token: str | None = None, tls: tuple[str, str] | None = None):
        self.token = token
        self.lock = threading.Lock()
        self.lines: list[str] = []
        self.keys: list[str] = []
        self.otlp: list[tuple[str, bytes]] = []  # (path, decompressed protobuf body)
        self.requests = 0
        self.bad_auth = 0
        self.fail_next = 0
        self.throttle_next = 0
        self.hang_next = 0
        self.hang_s = 0.0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with outer.lock:
                    outer.requests += 1
                    if outer.token is not None and self.headers.get("Authorization") != f"Bearer {outer.token}":
                        outer.bad_auth += 1
                        return self._answer(401)
                    if outer.hang_next > 0:
                        outer.hang_next -= 1
                        hang = outer.hang_s
                    else:
                        hang = 0.0
                if hang:
                    time.sleep(hang)
                    return self._answer(200)  # too late: the agent gave up, and will send it again
                with outer.lock:
                    if outer.fail_next > 0:
                        outer.fail_next -= 1
                        return self._answer(500)
                    if outer.throttle_next > 0:
                        outer.throttle_next -= 1
                        return self._answer(429, {"Retry-After": "1"})
                    assert self.headers.get("Content-Encoding") == "gzip"
                    if self.path.startswith("/v1/"):
                        assert self.headers.get("Content-Type") == "application/x-protobuf"
                        outer.otlp.append((self.path, gzip.decompress(body)))
                        return self._answer(200)
                    text = gzip.decompress(body).decode("utf-8")
                    assert text.endswith("\n")
                    outer.lines.extend(text.split("\n")[:-1])
                    outer.keys.append(self.headers["Idempotency-Key"])
                return self._answer(200)

            def _answer(self, status, headers=None):
                self.send_response(status)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # an agent SIGKILLed mid-request resets its connection: expected here

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        scheme = "http"
        if tls is not None:  # (certificate, key) files: serve https
            import ssl

            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.base = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.url = self.base + "/ingest"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def received(self) -> list[str]:
        with self.lock:
            return list(self.lines)


class LogWriter:
    """Writes one session's three channels under `prefix` like gpufl's writer: lines appended to
    `<prefix>.<channel>.log`, which is renamed to `<prefix>.<channel>.<N>.log` past `rotate_bytes` and then
    compressed to `.zst` (through a .zst.tmp, the plain file deleted after)."""

    def __init__(self, prefix: pathlib.Path, sid: str, rotate_bytes: int = 20000):
        self.prefix = prefix
        self.sid = sid
        self.rotate_bytes = rotate_bytes
        self.next_seg = {c: 1 for c in CHANNELS}
        self.written: list[str] = []
        self.seq = 0

    def _active(self, channel):
        return pathlib.Path(f"{self.prefix}.{channel}.log")

    def write(self, channel: str, record: dict):
        record = {"type": record.pop("type"), "sid": self.sid, **record}
        line = json.dumps(record, separators=(",", ":"))
        with open(self._active(channel), "a") as f:
            f.write(line + "\n")
        self.written.append(line)
        if self._active(channel).stat().st_size >= self.rotate_bytes:
            self.rotate(channel)

    def record(self, channel: str):
        self.seq += 1
        self.write(channel, {"type": "scope_begin" if channel == "scope" else "kernel_event" if channel == "device"
                             else "gpu_sample", "seq": self.seq, "pad": "x" * (self.seq % 97)})

    def rotate(self, channel: str):
        n = self.next_seg[channel]
        self.next_seg[channel] += 1
        seg = pathlib.Path(f"{self.prefix}.{channel}.{n:06d}.log")
        os.rename(self._active(channel), seg)
        if n % 2 == 0:  # leave every other segment plain for a while, as a writer killed before compressing does
            return
        tmp = pathlib.Path(str(seg) + ".zst.tmp")
        subprocess.run(["zstd", "-q", "-f", "-3", str(seg), "-o", str(tmp)], check=True)
        os.rename(tmp, str(seg) + ".zst")
        os.unlink(seg)

    def start(self):
        for c in CHANNELS:
            self.write(c, {"type": "session_start", "schema": 1, "session_id": f"{self.sid}-0000", "app": "t"})

    def end(self):
        for c in CHANNELS:
            self.write(c, {"type": "session_end", "end_ns": 1})


class Agent:
    """`gpufl agent` as a child process; its stderr goes to a file the test can read."""

    def __init__(self, tmp: pathlib.Path, url: str, inputs, token: str | None = None, extra=(), timeout_ms=1000):
        self.tmp = tmp
        self.args = [gpufl_exe(), "agent", "--to", url, "--state-dir", str(tmp / "state"), "--listen",
                     "127.0.0.1:0", "--poll-ms", "50", "--backoff-min-ms", "20", "--backoff-max-ms", "200",
                     "--timeout-ms", str(timeout_ms), "--batch-bytes", "8192", *extra, *map(str, inputs)]
        self.env = dict(os.environ)
        if token is not None:
            self.env["GPUFL_AGENT_TOKEN"] = token
        self.proc = None
        self.runs = 0

    def start(self):
        self.runs += 1
        self.log = open(self.tmp / f"agent-{self.runs}.log", "w")
        self.proc = subprocess.Popen(self.args, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def stop(self, timeout=20):
        self.proc.terminate()
        rc = self.proc.wait(timeout=timeout)
        self.log.close()
        return rc

    def logs(self) -> str:
        return "".join((self.tmp / f"agent-{i}.log").read_text() for i in range(1, self.runs + 1))

    def port(self, timeout=10) -> int:
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(r"serving /metrics and /healthz on 127\.0\.0\.1:(\d+)",
                          (self.tmp / f"agent-{self.runs}.log").read_text())
            if m:
                return int(m.group(1))
            time.sleep(0.02)
        raise AssertionError("agent did not start its health server:\n" + self.logs())

    def metrics_text(self) -> str:
        return urllib.request.urlopen(f"http://127.0.0.1:{self.port()}/metrics", timeout=5).read().decode()

    def metrics(self) -> dict[str, float]:
        text = self.metrics_text()
        out = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
        return out


def wait_for(cond, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def require_tools():
    import pytest

    if shutil.which("zstd") is None:
        pytest.skip("the zstd command is needed to compress segments")
    if not os.access(gpufl_exe(), os.X_OK):
        pytest.skip("no gpufl executable")
