"""Pieces shared by the bench scripts run on the H200 (deep_truth.py, engine_cost.py)."""
import os
import signal
import subprocess
import time


class Tee:
    """print() to stdout and to a file."""

    def __init__(self, path):
        self.f = open(path, "w")

    def __call__(self, *args):
        text = " ".join(str(a) for a in args)
        print(text, flush=True)
        self.f.write(text + "\n")
        self.f.flush()


def env_without(names, extra):
    """os.environ less `names` (our own GPUFL_* settings from the caller's shell), plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in names}
    env.update(extra)
    return env


def run_in_group(cmd, cwd, env, timeout, merge_stderr=False):
    """-> (exit code, or 'timeout' / 'error: ...', wall s, stdout, stderr). The command runs in its own
    process group, killed whole on timeout (ncu and `gpufl trace` start the program as their child, which
    would otherwise keep the pipes open). With merge_stderr, stderr is in stdout and the last item is ""."""
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
        return f"error: {e}", time.perf_counter() - t0, "", ""
    try:
        stdout, stderr = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            p.kill()
        try:
            stdout, stderr = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            stdout, stderr = b"(output lost: a process outside the group kept the pipes open)", b""
        rc = "timeout"
    decode = lambda b: (b or b"").decode("utf-8", "replace")  # noqa: E731
    return rc, time.perf_counter() - t0, decode(stdout), decode(stderr)
