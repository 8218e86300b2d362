"""Finding the log: a directory (one log, or several: the newest, the others named), a missing prefix (the logs
that are there are listed), and a script's own log_path redirected by `gpufl trace` (GPUFL_LOG_PATH)."""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import warnings

import pytest

pytest.importorskip("pandas")
from gpufl.analyzer import GpuFlightSession  # noqa: E402

H200 = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "h200"


def _copy(fixture, directory, prefix, mtime=None):
    for channel in ("device", "scope", "system"):
        dst = directory / f"{prefix}.{channel}.log"
        shutil.copy(H200 / f"{fixture}.{channel}.log", dst)
        if mtime is not None:
            os.utime(dst, (mtime, mtime))


def test_a_directory_with_one_log_reads_it_whatever_its_prefix(tmp_path):
    _copy("kernel_zoo_trace", tmp_path, "my_run")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one log: nothing to warn about
        s = GpuFlightSession(str(tmp_path))
    assert s.prefix == str(tmp_path / "my_run") and s.info["app"] == "kernel_zoo"


def test_a_directory_with_several_logs_reads_the_newest_and_names_the_others(tmp_path):
    _copy("kernel_zoo_trace", tmp_path, "older", mtime=1_000_000)
    _copy("matmul_tiling", tmp_path, "newer", mtime=2_000_000)
    with pytest.warns(UserWarning, match=r"2 logs.*'newer'.*others: older"):
        s = GpuFlightSession(str(tmp_path))
    assert s.prefix.endswith("newer")


def test_a_channel_file_or_prefix_path_as_log_dir(tmp_path):
    _copy("kernel_zoo_trace", tmp_path, "run")
    assert GpuFlightSession(str(tmp_path / "run.device.log")).prefix == str(tmp_path / "run")
    assert GpuFlightSession(str(tmp_path / "run")).prefix == str(tmp_path / "run")


def test_a_missing_prefix_lists_the_logs_there(tmp_path):
    _copy("kernel_zoo_trace", tmp_path, "run_a")
    _copy("kernel_zoo_trace", tmp_path, "run_b")
    with pytest.raises(FileNotFoundError, match=r"'gpufl'.*the logs there: run_.*, run_"):
        GpuFlightSession(str(tmp_path), log_prefix="gpufl")
    with pytest.raises(FileNotFoundError, match="no GPU Flight log"):
        GpuFlightSession(str(tmp_path / "empty_dir_that_is_absent"))


def test_a_log_path_redirected_by_gpufl_trace_is_read_where_it_went(tmp_path):
    # An older session under the script's own prefix, as a previous run would leave it.
    _copy("kernel_zoo_trace", tmp_path, "smoke_test")
    code = textwrap.dedent("""
        import warnings, gpufl
        from gpufl.analyzer import GpuFlightSession
        gpufl.init("smoke-test", log_path="./smoke_test", system_sample_rate_ms=0)
        with gpufl.Scope("fresh_scope"):
            pass
        gpufl.shutdown()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = GpuFlightSession(".", log_prefix="smoke_test", use_rich=False)
        print("PREFIX", s.prefix)
        print("APP", s.info["app"])
        print("WARN", " | ".join(str(x.message) for x in w))
    """)
    env = dict(os.environ, GPUFL_LOG_PATH=str(tmp_path / "traced"), CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    out = dict(line.split(" ", 1) for line in p.stdout.splitlines() if line[:4] in ("PREF", "APP ", "WARN"))
    assert out["PREFIX"] == str(tmp_path / "traced"), p.stdout
    assert out["APP"] == "smoke-test"  # the session just recorded, not the older kernel_zoo one
    assert "was recorded to" in out["WARN"] and "GPUFL_LOG_PATH" in out["WARN"], p.stdout
