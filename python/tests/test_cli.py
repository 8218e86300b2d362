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
