"""The `gpufl` command line tool ships in the package and runs through the console script / python -m gpufl."""
import os
import pathlib
import subprocess
import sys

import gpufl
from gpufl import _cli


def test_bundled_executable_exists():
    exe = pathlib.Path(_cli.executable())
    assert exe.is_file() and os.access(exe, os.X_OK)


def test_python_m_gpufl_version():
    p = subprocess.run([sys.executable, "-m", "gpufl", "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"gpufl {gpufl.__version__}"


def test_console_script(data_dir):
    script = pathlib.Path(sys.executable).parent / "gpufl"
    if not script.exists():
        import pytest

        pytest.skip("console script not installed next to this interpreter")
    p = subprocess.run([str(script), "report", str(data_dir / "sample"), "--top", "3"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "fixture_app" in p.stdout and "Top 3 Kernels" in p.stdout


def test_console_script_prefers_the_wheels_cupti(tmp_path, monkeypatch):
    # `gpufl trace` / `gpufl doctor` through the console script look first where gpufl.init does: the nvidia wheel's
    # libcupti on sys.path (nvidia-cuda-cupti, as `pip install gpufl[cu13]` or PyTorch brings it).
    lib = tmp_path / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcupti.so.13").write_bytes(b"")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("GPUFL_CUPTI_DIRS", raising=False)
    monkeypatch.delenv("GPUFL_CUPTI_LIB", raising=False)
    seen = {}

    def fake_execve(path, argv, env):
        seen.update(path=path, argv=argv, env=env)
        raise SystemExit(0)

    monkeypatch.setattr(_cli.os, "execve", fake_execve)
    try:
        _cli.main(["doctor", "--json"])
    except SystemExit:
        pass
    assert seen["argv"] == ["gpufl", "doctor", "--json"]
    assert seen["env"]["GPUFL_CUPTI_DIRS"].split(":")[0] == str(lib)
    assert "GPUFL_CUPTI_DIRS" not in os.environ  # only the tool's environment
    # An explicit choice stays.
    monkeypatch.setenv("GPUFL_CUPTI_LIB", "/opt/mine/libcupti.so.13")
    try:
        _cli.main(["doctor"])
    except SystemExit:
        pass
    assert "GPUFL_CUPTI_DIRS" not in seen["env"]


def test_doctor_json(tmp_path):
    # Runs on any machine (CI has no driver): one JSON object with a verdict for each of the five engines.
    import json

    p = subprocess.run([_cli.executable(), "doctor", "--json"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert [e["engine"] for e in d["engines"]] == ["None", "PcSampling", "SassMetrics", "PcSamplingWithSass",
                                                   "RangeProfiler"]
    assert all(e["verdict"] in ("works", "untested", "refused") for e in d["engines"])
    assert d["gpufl_version"] == gpufl.__version__
