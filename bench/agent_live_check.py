#!/usr/bin/env python3
"""`gpufl agent` beside a live program (the H200 check): runs COMMAND, which writes logs under DIR (e.g.
`gpufl trace -o DIR/torch -- python3 examples/python/train_loop.py`), while the agent follows DIR and ships to a
receiver on loopback; SIGKILLs and restarts the agent --kills times while COMMAND runs; then waits until every
line of DIR's log files has arrived and reports lines, repeats, and the agent's CPU time and peak RSS.

    bench/agent_live_check.py --exe build/h200/apps/gpufl/gpufl --dir /tmp/live --kills 5 -- COMMAND...

Exit status 1 when a line is missing or altered. Compressed segments are checked when Python's `zstandard`
module is there (else only plain files are compared, and the count of skipped .zst files is printed).
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time
import subprocess

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python" / "tests"))
from agent_harness import Agent, Receiver  # noqa: E402


def proc_stats(pid):
    """(CPU seconds, peak RSS MiB) of a running process."""
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(stat[11]) + int(stat[12])
    import os

    cpu = ticks / os.sysconf("SC_CLK_TCK")
    hwm = next(l for l in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("VmHWM"))
    return cpu, int(hwm.split()[1]) / 1024


def written_lines(d: pathlib.Path):
    lines, skipped = [], 0
    try:
        import zstandard
    except ImportError:
        zstandard = None
    for f in sorted(d.rglob("*.log*")):
        if f.name.endswith(".zst"):
            if zstandard is None:
                skipped += 1
                continue
            text = zstandard.ZstdDecompressor().stream_reader(open(f, "rb")).read().decode()
        elif f.name.endswith(".log"):
            text = f.read_text()
        else:
            continue
        lines.extend(l for l in text.split("\n")[:-1])
    return lines, skipped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    d = pathlib.Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    work = d.parent / (d.name + "-agent")
    work.mkdir(exist_ok=True)
    import os

    os.environ["GPUFL_EXE"] = a.exe
    receiver = Receiver(token="live-check-token")
    agent = Agent(work, receiver.url, [d], token="live-check-token")
    agent.start()
    t0 = time.time()
    prog = subprocess.Popen(cmd)
    kills = 0
    while prog.poll() is None:
        time.sleep(1.0)
        if kills < a.kills and prog.poll() is None:
            agent.kill()
            agent.start()
            kills += 1
    print(f"command exit {prog.returncode} after {time.time() - t0:.1f} s; agent SIGKILLed {kills} times")
    expected, skipped = written_lines(d)
    deadline = time.time() + 300
    while time.time() < deadline and not set(expected) <= set(receiver.received()):
        time.sleep(0.2)
    cpu, rss = proc_stats(agent.proc.pid)
    got = receiver.received()
    missing = set(expected) - set(got)
    foreign = set(got) - set(expected)
    agent.stop()
    receiver.close()
    print(f"lines in DIR {len(expected)} (.zst not compared: {skipped}); received {len(got)} "
          f"({len(got) - len(set(got))} repeats); missing {len(missing)}; not written {len(foreign)}")
    print(f"last agent run: CPU {cpu:.2f} s, peak RSS {rss:.1f} MiB")
    # Lines of .zst segments that were not compared can show up as "not written": only plain-file checks count.
    return 1 if missing or (foreign and not skipped) else 0


if __name__ == "__main__":
    sys.exit(main())
