"""`gpufl agent` against a receiver the test runs on loopback: at-least-once delivery through SIGKILLs,
rotation, compression and a misbehaving receiver; its security rules; its own metrics."""
from __future__ import annotations

import json
import os
import random
import shutil
import socket
import stat
import subprocess
import threading
import time

import pytest

from agent_harness import Agent, LogWriter, Receiver, require_tools, wait_for


@pytest.fixture(autouse=True)
def _tools():
    require_tools()


def test_sigkill_restarts_lose_nothing(tmp_path):
    seed = int(os.environ.get("GPUFL_AGENT_SEED", time.time_ns() % 1_000_000))
    rng = random.Random(seed)
    logs = tmp_path / "logs"
    (logs / "host1").mkdir(parents=True)
    token = "s3cret-token-value"
    receiver = Receiver(token=token)
    receiver.fail_next = 6  # 500s at the start
    writers = [LogWriter(logs / "run", "aaaa0001"), LogWriter(logs / "host1" / "train", "bbbb0002", 12000)]
    corrupt = '{"type":"kernel_event","sid":"aaaa0001","dur_ns":12'  # cut short, then more lines follow

    def write_all():
        for w in writers:
            w.start()
        for i in range(6000):
            w = writers[i % 2]
            w.record(("device", "scope", "system")[rng.randrange(3)] if i % 5 else "device")
            if i == 2500:
                with open(f"{writers[0].prefix}.device.log", "a") as f:
                    f.write(corrupt + "\n")
            if i % 400 == 0:
                time.sleep(0.05)
                with receiver.lock:  # misbehave now and then while the agent is shipping
                    if i == 2000:
                        receiver.fail_next += 5
                    if i == 3200:
                        receiver.throttle_next += 1
                    if i == 4000:
                        receiver.hang_next, receiver.hang_s = 1, 1.5
        for w in writers:
            w.end()

    agent = Agent(tmp_path, receiver.url, [logs], token=token)
    writer = threading.Thread(target=write_all)
    writer.start()
    kills = 0
    try:
        while writer.is_alive() or kills < 8:
            agent.start()
            time.sleep(rng.uniform(0.05, 0.6))
            agent.kill()
            kills += 1
        writer.join()
        agent.start()
        written = set(w for wr in writers for w in wr.written)
        wait_for(lambda: written <= set(receiver.received()), 60, "every written line at the receiver")
        m = agent.metrics()
        wait_for(lambda: len(json.loads((tmp_path / "state" / "state.json").read_text())["shipped"]) == 2, 10,
                 "both sessions marked shipped")
        assert agent.stop() == 0
    finally:
        if agent.proc.poll() is None:
            agent.kill()
        receiver.close()
    got = receiver.received()
    note = f"(seed {seed}, {kills} kills; agent log:\n{agent.logs()[-3000:]})"
    assert set(got) - written == set(), f"lines received that were never written {note}"
    assert written - set(got) == set(), f"lines written but never received {note}"
    assert corrupt not in got
    assert receiver.bad_auth == 0
    # The receiver can drop repeats by key: a batch sent twice carries the same key.
    assert len(got) >= len(written)
    assert token not in agent.logs()
    print(f"agent: {kills} SIGKILLs, {len(written)} lines written, {len(got)} received "
          f"({len(got) - len(set(got))} repeats), {receiver.requests} requests; final run: {m}")


def test_metrics_count_skips_and_retries(tmp_path):
    receiver = Receiver()
    receiver.fail_next = 2
    receiver.throttle_next = 1
    w = LogWriter(tmp_path / "app", "cccc0003", rotate_bytes=1 << 30)
    w.start()
    for _ in range(50):
        w.record("device")
    with open(tmp_path / "app.device.log", "a") as f:
        f.write("garbage, not JSON\n")
        f.write('{"no_type":1,"sid":"cccc0003"}\n')
    w.end()
    # A long timeout: a slow CI machine must not add retries to the exact counts checked below.
    agent = Agent(tmp_path, receiver.url, [tmp_path / "app"], timeout_ms=20000)
    agent.start()
    try:
        t0 = time.time()
        wait_for(lambda: set(w.written) <= set(receiver.received()), 30, "all lines")
        elapsed = time.time() - t0
        m = agent.metrics()
        text = agent.metrics_text()
        health = __import__("urllib.request").request.urlopen(f"http://127.0.0.1:{agent.port()}/healthz").read()
    finally:
        agent.stop()
        receiver.close()
    assert m['gpufl_agent_errors_total{kind="corrupt_line"}'] == 2
    assert m['gpufl_agent_errors_total{kind="http_5xx"}'] == 2
    assert m['gpufl_agent_errors_total{kind="http_429"}'] == 1
    assert m["gpufl_agent_retries_total"] == 3
    assert m["gpufl_agent_lines_read_total"] == len(w.written) + 2
    assert elapsed >= 1.0, "Retry-After: 1 was not honoured"
    assert json.loads(health)["status"] == "ok"
    if shutil.which("promtool"):  # Debian's prometheus package: the exposition format's own linter
        p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        assert p.returncode == 0, p.stdout + p.stderr


def test_token_stays_out_of_argv_and_logs(tmp_path):
    receiver = Receiver(token="tok-123456789")
    w = LogWriter(tmp_path / "p", "dddd0004")
    w.start()
    w.end()
    agent = Agent(tmp_path, receiver.url, [tmp_path / "p"], token="tok-123456789")
    agent.start()
    try:
        wait_for(lambda: set(w.written) <= set(receiver.received()), 30, "all lines")
        cmdline = open(f"/proc/{agent.proc.pid}/cmdline", "rb").read()
    finally:
        agent.stop()
        receiver.close()
    assert b"tok-123456789" not in cmdline
    assert "tok-123456789" not in agent.logs()
    assert receiver.bad_auth == 0


def test_refuses_public_listen_without_token(tmp_path):
    agent = Agent(tmp_path, "http://127.0.0.1:9/x", [tmp_path], extra=["--listen", "0.0.0.0:0"])
    agent.args.remove("127.0.0.1:0")
    agent.args.remove("--listen")
    agent.env.pop("GPUFL_AGENT_TOKEN", None)
    agent.start()
    rc = agent.proc.wait(timeout=20)
    agent.log.close()
    assert rc == 2
    assert "not a loopback address" in agent.logs()


def test_refuses_token_over_plain_http_beyond_loopback(tmp_path):
    agent = Agent(tmp_path, "http://192.0.2.1:9/x", [tmp_path], token="tok-clear-1234")
    agent.start()
    rc = agent.proc.wait(timeout=20)
    agent.log.close()
    assert rc == 2
    assert "refusing to send the bearer token in clear: --to http://192.0.2.1:9/x" in agent.logs()
    assert "tok-clear-1234" not in agent.logs()


def test_allow_insecure_sends_the_token_in_clear_and_says_so(tmp_path):
    agent = Agent(tmp_path, "http://192.0.2.1:9/x", [tmp_path], token="tok-clear-1234",
                  extra=["--allow-insecure"])
    agent.start()
    try:
        wait_for(lambda: "in clear over the network" in agent.logs(), 20, "the warning at start")
    finally:
        assert agent.stop() == 0
    assert "tok-clear-1234" not in agent.logs()


def test_sigterm_ends_it_within_a_second_whatever_clients_and_receiver_do(tmp_path):
    """Idle and half-sent connections on its health port, and a POST the receiver never answers:
    SIGTERM still ends the agent at once (the bound here is generous for a loaded machine)."""
    receiver = Receiver()
    receiver.hang_next, receiver.hang_s = 1, 60.0
    w = LogWriter(tmp_path / "p", "abab0009")
    w.start()
    w.end()
    agent = Agent(tmp_path, receiver.url, [tmp_path / "p"], timeout_ms=60000)
    agent.start()
    hostile = []
    try:
        port = agent.port()
        for i in range(40):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i % 2:
                s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
            hostile.append(s)
        wait_for(lambda: receiver.requests >= 1, 20, "the POST the receiver holds")
        time.sleep(0.2)
        t0 = time.monotonic()
        agent.proc.terminate()
        rc = agent.proc.wait(timeout=30)
        took = time.monotonic() - t0
        agent.log.close()
    finally:
        for s in hostile:
            s.close()
        if agent.proc.poll() is None:
            agent.kill()
        receiver.close()
    print(f"agent ended {took * 1000:.0f} ms after SIGTERM")
    assert rc == 0
    assert took < 3.0, f"SIGTERM took {took:.1f} s"


def test_symlinks_refused_and_files_0640(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    outside = tmp_path / "outside.device.log"
    outside.write_text('{"type":"secret","sid":"eeee0005"}\n')
    os.symlink(outside, logs / "evil.device.log")
    receiver = Receiver()
    w = LogWriter(logs / "ok", "ffff0006")
    w.start()
    w.end()
    old = os.umask(0)
    try:
        agent = Agent(tmp_path, receiver.url, [logs])
        agent.start()
    finally:
        os.umask(old)
    try:
        wait_for(lambda: set(w.written) <= set(receiver.received()), 30, "all lines")
        m = agent.metrics()
    finally:
        agent.stop()
        receiver.close()
    assert not any("secret" in line for line in receiver.received())
    assert m['gpufl_agent_errors_total{kind="symlink_refused"}'] == 1
    state = tmp_path / "state" / "state.json"
    assert stat.S_IMODE(state.stat().st_mode) == 0o640


def test_https_receiver_verified_against_the_given_ca(tmp_path):
    import shutil as sh
    import subprocess

    if sh.which("openssl") is None:
        pytest.skip("no openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    receiver = Receiver(tls=(str(cert), str(key)))
    w = LogWriter(tmp_path / "p", "abab0007")
    w.start()
    w.end()
    # Without the CA the self-signed certificate is refused: nothing is sent in the clear or unverified.
    untrusting = Agent(tmp_path / "a1", receiver.url, [tmp_path / "p"])
    (tmp_path / "a1").mkdir()
    untrusting.start()
    try:
        wait_for(lambda: untrusting.metrics().get('gpufl_agent_errors_total{kind="network"}', 0) >= 1, 20,
                 "a refused TLS handshake")
        assert receiver.received() == []
    finally:
        untrusting.stop()
    trusting = Agent(tmp_path / "a2", receiver.url, [tmp_path / "p"], extra=["--ca-file", str(cert)])
    (tmp_path / "a2").mkdir()
    trusting.start()
    try:
        wait_for(lambda: set(w.written) <= set(receiver.received()), 30, "all lines over https")
    finally:
        trusting.stop()
        receiver.close()
