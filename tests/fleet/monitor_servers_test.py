#!/usr/bin/env python3
"""`gpufl monitor` against real servers, all on loopback and started here.

Two monitors run: one replaying a scripted NVML (two GPUs, every field, a process; its /metrics needs a bearer
token) and one without NVML (host metrics and the reason NVML is off). The test checks:
  - /metrics: every value the script sets, in base units; `promtool check metrics` finds no problem;
  - Debian's Prometheus scrapes both (with the token) and its HTTP query API returns the same series;
  - Prometheus remote_writes into Debian's VictoriaMetrics, whose query API returns them too;
  - `--apps DIR`: a profiled program's device log (a real H200 PyTorch session, written in two parts while the
    monitor runs) comes out as gpufl_app_kernels_total / gpufl_app_kernel_seconds_total, also in Prometheus;
  - SIGTERM (and SIGINT) stops a monitor cleanly: exit 0, session_end in its log, files 0640.
Usage: monitor_servers_test.py PATH/TO/gpufl. Exits 77 (CTest: skipped) when promtool, prometheus or
victoria-metrics is not installed (Debian packages prometheus, victoria-metrics; scripts/install-deps.sh).
"""
import json
import os
import queue
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77
TOKEN = "fleet-test-token-7c1e"
# The 11 clock event reasons NVML names (nvml.h nvmlClocksEventReason*), each shown as 0 or 1.
THROTTLE_REASONS = ["gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
                    "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
                    "display_clocks_setting", "board_limit", "reliability"]
# Script field -> (metric, factor to the base unit). PCIe: NVML's KB/s are KiB/s.
FIELDS = {
    "util_gpu": ("gpufl_gpu_utilization_ratio", 0.01),
    "util_mem": ("gpufl_gpu_memory_utilization_ratio", 0.01),
    "mem_used_bytes": ("gpufl_gpu_memory_used_bytes", 1),
    "mem_total_bytes": ("gpufl_gpu_memory_total_bytes", 1),
    "temp_c": ("gpufl_gpu_temperature_celsius", 1),
    "power_mw": ("gpufl_gpu_power_watts", 1e-3),
    "power_limit_mw": ("gpufl_gpu_power_limit_watts", 1e-3),
    "energy_mj": ("gpufl_gpu_energy_joules_total", 1e-3),
    "clk_sm": ("gpufl_gpu_sm_clock_hertz", 1e6),
    "clk_mem": ("gpufl_gpu_memory_clock_hertz", 1e6),
    "clk_gfx": ("gpufl_gpu_graphics_clock_hertz", 1e6),
    "pcie_rx_kbps": ("gpufl_gpu_pcie_receive_bytes_per_second", 1024),
    "pcie_tx_kbps": ("gpufl_gpu_pcie_transmit_bytes_per_second", 1024),
}
DEVICES = [{"name": "NVIDIA H200", "uuid": "GPU-6f1c2d3e-aaaa-bbbb-cccc-000000000000"},
           {"name": "NVIDIA H200 \"second\"", "uuid": "GPU-6f1c2d3e-aaaa-bbbb-cccc-000000000001"}]
SAMPLES = [{"gpu": 0, "util_gpu": 87, "util_mem": 41, "mem_used_bytes": 50_123_456_789,
            "mem_total_bytes": 150_754_820_096, "temp_c": 61, "power_mw": 456_789, "power_limit_mw": 700_000,
            "energy_mj": 9_876_543_210, "clk_sm": 1980, "clk_mem": 2619, "clk_gfx": 1975, "pcie_rx_kbps": 1_000,
            "pcie_tx_kbps": 2_500, "throttle": 0x5},
           {"gpu": 1, "util_gpu": 3, "temp_c": 33, "throttle": 0x1}]


TORCH_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "h200",
                         "pytorch_train_trace.device.log")


def fail(msg):
    raise AssertionError(msg)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, headers=None, timeout=5):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read().decode()


def wait_until(what, check, timeout):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (OSError, urllib.error.URLError, ValueError, KeyError) as e:
            last = e
        time.sleep(0.2)
    fail(f"timed out waiting for {what} (last: {last!r})")


class Proc:
    """A server started by the test: output to a file, stopped at the end, shown when the test fails."""

    def __init__(self, name, args, tmp, env=None):
        self.name, self.log_path = name, os.path.join(tmp, name + ".out")
        self.out = open(self.log_path, "w")
        self.p = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT, env=env, cwd=tmp,
                                  start_new_session=True)

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.out.close()

    def tail(self):
        with open(self.log_path, errors="replace") as f:
            return f"--- {self.name} ---\n" + "".join(f.readlines()[-30:])


class Monitor:
    """`gpufl monitor` on an ephemeral port, read from its own 'listening on' line."""

    def __init__(self, gpufl, args, env=None):
        self.lines = []
        self.p = subprocess.Popen([gpufl, "monitor", "--listen", "127.0.0.1:0", *args], stderr=subprocess.PIPE,
                                  text=True, env=env)
        q = queue.Queue()

        def read():
            for line in self.p.stderr:
                self.lines.append(line)
                q.put(line)
        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + 10
        while True:
            try:
                line = q.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                fail(f"monitor did not say where it listens: {self.lines}")
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/metrics", line)
            if m:
                self.port = int(m.group(1))
                return

    def metrics(self, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        status, body = http_get(f"http://127.0.0.1:{self.port}/metrics", headers)
        assert status == 200, status
        return body

    def terminate(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        try:
            return self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail(f"monitor did not stop within 10 s of {sig.name}")

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def parse_exposition(text):
    """{(name, frozenset(labels)): value}; checks that each family's samples follow its HELP and TYPE."""
    series, typed, helped = {}, None, None
    label_re = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped = line.split()[2]
            continue
        if line.startswith("# TYPE "):
            typed = line.split()[2]
            assert typed == helped, f"TYPE without HELP: {line}"
            continue
        name_labels, value = line.rsplit(" ", 1)
        name = name_labels.split("{", 1)[0]
        assert name == typed, f"sample outside its family: {line}"
        labels = {k: v.replace('\\"', '"').replace("\\\\", "\\") for k, v in label_re.findall(name_labels)}
        key = (name, frozenset(labels.items()))
        assert key not in series, f"duplicate series: {line}"
        series[key] = float(value)
    return series


def expected_gpu_series(pid):
    """Every GPU series the script implies: (name, labels) -> value."""
    out = {}
    for s in SAMPLES:
        dev = DEVICES[s["gpu"]]
        base = {"gpu": str(s["gpu"]), "uuid": dev["uuid"], "name": dev["name"]}
        for field, (metric, factor) in FIELDS.items():
            if field in s:
                out[(metric, frozenset(base.items()))] = s[field] * factor
        for bit, reason in enumerate(THROTTLE_REASONS):
            labels = dict(base, reason=reason)
            out[("gpufl_gpu_throttle_reason", frozenset(labels.items()))] = float((s["throttle"] >> bit) & 1)
    for i, dev in enumerate(DEVICES):
        out[("gpufl_gpu_info", frozenset({"gpu": str(i), "uuid": dev["uuid"], "name": dev["name"]}.items()))] = 1
    proc = {"gpu": "0", "uuid": DEVICES[0]["uuid"], "name": DEVICES[0]["name"], "pid": str(pid),
            "command": open(f"/proc/{pid}/comm").read().strip()}
    out[("gpufl_gpu_process_memory_used_bytes", frozenset(proc.items()))] = 3 * 2**30
    return out


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_series(where, got, expected, family="gpufl_gpu_"):
    for key, value in expected.items():
        if key not in got:
            fail(f"{where}: missing {key[0]}{dict(key[1])}")
        if not close(got[key], value):
            fail(f"{where}: {key[0]}{dict(key[1])} = {got[key]}, expected {value}")
    extra = [k for k in got if k[0].startswith(family) and k not in expected]
    if extra:
        fail(f"{where}: unexpected {family}* series {extra[:3]}")


def query(base, promql, extra_drop=("job", "instance")):
    """Instant query through the Prometheus HTTP API (Prometheus and VictoriaMetrics both serve it)."""
    url = f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
    status, body = http_get(url)
    doc = json.loads(body)
    assert doc["status"] == "success", body
    out = {}
    for r in doc["data"]["result"]:
        labels = {k: v for k, v in r["metric"].items() if k not in extra_drop and k != "__name__"}
        out[(r["metric"]["__name__"], frozenset(labels.items()))] = float(r["value"][1])
    return out


def run(gpufl, tmp):
    started = time.monotonic()
    procs, monitors = [], []
    try:
        # The scripted monitor, token-protected; the script's process is this test (a pid with a known comm).
        script = os.path.join(tmp, "nvml.ndjson")
        with open(script, "w") as f:
            f.write(json.dumps({"devices": DEVICES}) + "\n")
            f.write(json.dumps({"samples": SAMPLES, "processes": [
                {"gpu": 0, "pid": os.getpid(), "used_bytes": 3 * 2**30}]}) + "\n")
        token_file = os.path.join(tmp, "token")
        with open(token_file, "w") as f:
            f.write(TOKEN + "\n")
        os.chmod(token_file, 0o600)
        prefix = os.path.join(tmp, "logs", "mon")
        os.makedirs(os.path.dirname(prefix))
        # A profiled program's live device log: its first part now, the rest (to session_end) once watched.
        apps_dir = os.path.join(tmp, "apps")
        os.makedirs(apps_dir)
        torch_lines = open(TORCH_LOG).readlines()
        kernel_lines = [json.loads(l) for l in torch_lines if '"type":"kernel_event"' in l]
        app_log = os.path.join(apps_dir, "train.device.log")
        with open(app_log, "w") as f:
            f.writelines(torch_lines[: len(torch_lines) // 2])
        gpu_mon = Monitor(gpufl, ["--interval", "250", "--prefix", prefix, "--nvml-script", script,
                                  "--apps", apps_dir],
                          env=dict(os.environ, GPUFL_MONITOR_TOKEN=TOKEN))
        monitors.append(gpu_mon)
        nogpu_mon = Monitor(gpufl, ["--interval", "250", "--nvml-library", "/nonexistent/libnvidia-ml.so.1"])
        monitors.append(nogpu_mon)
        time.sleep(0.6)  # a few ticks
        with open(app_log, "a") as f:
            f.writelines(torch_lines[len(torch_lines) // 2:])
        time.sleep(0.5)

        # /metrics itself: the token, the values, promtool.
        try:
            http_get(f"http://127.0.0.1:{gpu_mon.port}/metrics")
            fail("/metrics answered without the token")
        except urllib.error.HTTPError as e:
            assert e.code == 401, e.code
        pid = os.getpid()
        expected = expected_gpu_series(pid)
        for mon, tok in ((gpu_mon, TOKEN), (nogpu_mon, None)):
            text = mon.metrics(tok)
            lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
            if lint.returncode != 0 or lint.stdout.strip() or lint.stderr.strip():
                fail(f"promtool check metrics (rc {lint.returncode}): {lint.stdout}{lint.stderr}")
        direct = parse_exposition(gpu_mon.metrics(TOKEN))
        check_series("/metrics", direct, expected)
        nvml_up = {k: v for k, v in direct.items() if k[0] == "gpufl_nvml_up"}
        assert nvml_up == {("gpufl_nvml_up", frozenset({"reason": ""}.items())): 1.0}, nvml_up
        nogpu = parse_exposition(nogpu_mon.metrics())
        reason = ("NVML not available (/nonexistent/libnvidia-ml.so.1 not found: no NVIDIA driver installed?)")
        assert nogpu.get(("gpufl_nvml_up", frozenset({"reason": reason}.items()))) == 0.0, nogpu
        assert not [k for k in nogpu if k[0].startswith("gpufl_gpu_")]
        mem_total_kib = int(re.search(r"MemTotal:\s+(\d+) kB", open("/proc/meminfo").read()).group(1))
        assert nogpu[("gpufl_host_memory_total_bytes", frozenset())] == mem_total_kib * 1024
        assert 0 <= nogpu[("gpufl_host_cpu_utilization_ratio", frozenset())] <= 1
        app_labels = frozenset({"app": "python3", "pid": "1968", "session": "4d6225a6",
                                "uuid": "GPU-8d0165ca-f959-839b-4041-4f3046c6b511"}.items())
        app_expected = {("gpufl_app_kernels_total", app_labels): float(len(kernel_lines)),
                        ("gpufl_app_kernel_seconds_total", app_labels): sum(k["dur_ns"] for k in kernel_lines) * 1e-9}
        check_series("/metrics (apps)", direct, app_expected, "gpufl_app_")
        print(f"/metrics: {len(expected)} GPU series as scripted, promtool clean, "
              f"{len(kernel_lines)} kernels of the live app log "
              f"({time.monotonic() - started:.1f} s)")

        # VictoriaMetrics first, so that Prometheus' remote_write finds it up.
        vm_port, prom_port = free_port(), free_port()
        vm = Proc("victoria-metrics", ["victoria-metrics", f"-storageDataPath={tmp}/vm",
                                       f"-httpListenAddr=127.0.0.1:{vm_port}", "-retentionPeriod=1d",
                                       "-search.latencyOffset=0s", "-loggerLevel=ERROR"], tmp)
        procs.append(vm)
        vm_url = f"http://127.0.0.1:{vm_port}"
        wait_until("VictoriaMetrics /health", lambda: http_get(vm_url + "/health")[0] == 200, 20)
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
            "scrape_configs": [
                {"job_name": "gpufl-gpu", "authorization": {"type": "Bearer", "credentials_file": token_file},
                 "static_configs": [{"targets": [f"127.0.0.1:{gpu_mon.port}"]}]},
                {"job_name": "gpufl-nogpu", "static_configs": [{"targets": [f"127.0.0.1:{nogpu_mon.port}"]}]},
            ],
            "remote_write": [{"url": f"{vm_url}/api/v1/write",
                              "queue_config": {"batch_send_deadline": "500ms", "min_backoff": "100ms"}}],
        }
        config_path = os.path.join(tmp, "prometheus.yml")
        with open(config_path, "w") as f:
            json.dump(config, f)  # JSON is YAML
        prom = Proc("prometheus", ["prometheus", f"--config.file={config_path}",
                                   f"--storage.tsdb.path={tmp}/prom", f"--web.listen-address=127.0.0.1:{prom_port}",
                                   "--log.level=warn"], tmp)
        procs.append(prom)
        prom_url = f"http://127.0.0.1:{prom_port}"
        wait_until("Prometheus /-/ready", lambda: http_get(prom_url + "/-/ready")[0] == 200, 30)

        gpu_query = '{__name__=~"gpufl_gpu_.*",job="gpufl-gpu"}'
        got = wait_until("Prometheus to have scraped every GPU series",
                         lambda: (lambda r: r if len(r) >= len(expected) else None)(query(prom_url, gpu_query)), 20)
        check_series("Prometheus", got, expected)
        check_series("Prometheus (apps)", query(prom_url, '{__name__=~"gpufl_app_.*"}'), app_expected,
                     "gpufl_app_")
        both_up = {("up", frozenset({"job": "gpufl-gpu"}.items())): 1.0,
                   ("up", frozenset({"job": "gpufl-nogpu"}.items())): 1.0}
        wait_until("both monitors up in Prometheus",
                   lambda: query(prom_url, 'up{job=~"gpufl-.*"}', extra_drop=("instance",)) == both_up, 10)
        off = query(prom_url, 'gpufl_nvml_up{job="gpufl-nogpu"}')
        assert off == {("gpufl_nvml_up", frozenset({"reason": reason}.items())): 0.0}, off
        print(f"Prometheus: scraped both monitors, {len(got)} GPU series match ({time.monotonic() - started:.1f} s)")

        def vm_series():
            http_get(vm_url + "/internal/force_flush")
            r = query(vm_url, gpu_query)
            return r if len(r) >= len(expected) else None
        got_vm = wait_until("VictoriaMetrics to receive every GPU series by remote_write", vm_series, 20)
        check_series("VictoriaMetrics", got_vm, expected)
        wait_until("VictoriaMetrics to have the GPU-less monitor's reason",
                   lambda: query(vm_url, 'gpufl_nvml_up{job="gpufl-nogpu"}') == off, 10)
        print(f"VictoriaMetrics: {len(got_vm)} GPU series via remote_write match ({time.monotonic() - started:.1f} s)")

        # Clean shutdown.
        for mon, sig in ((gpu_mon, signal.SIGTERM), (nogpu_mon, signal.SIGINT)):
            rc = mon.terminate(sig)
            assert rc == 0, f"exit {rc}: {mon.lines}"
            assert any(f"received {sig.name}, stopping" in l for l in mon.lines), mon.lines
        system_log = prefix + ".system.log"
        mode = stat.S_IMODE(os.stat(system_log).st_mode)
        assert mode == 0o640, oct(mode)
        records = [json.loads(l) for l in open(system_log)]
        types = [r.get("type") for r in records]
        assert types[0] == "session_start" and types[-1] == "session_end", types[:3] + types[-3:]
        gpu_records = [r for r in records if r.get("type") == "system_sample" and r.get("gpu") == 0]
        assert gpu_records and gpu_records[-1]["power_mw"] == 456_789, gpu_records[-1:]
        print(f"SIGTERM, SIGINT: both monitors exit 0; log has session_start..session_end, "
              f"{len(gpu_records)} GPU 0 samples, mode 0640 ({time.monotonic() - started:.1f} s)")
    except BaseException:
        for p in reversed(procs):  # Prometheus before the VictoriaMetrics it writes to
            p.stop()
            print(p.tail(), file=sys.stderr)
        for m in monitors:
            print("--- monitor ---\n" + "".join(m.lines[-20:]), file=sys.stderr)
        raise
    finally:
        for m in monitors:
            m.kill()
        for p in reversed(procs):
            p.stop()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    missing = [b for b in ("promtool", "prometheus", "victoria-metrics") if not shutil.which(b)]
    if missing:
        print(f"SKIP: {', '.join(missing)} not installed (Debian packages prometheus and victoria-metrics; "
              "scripts/install-deps.sh installs them)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="gpufl_fleet_")
    try:
        run(os.path.abspath(sys.argv[1]), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
