"""The `gpufl` console script: runs the C++ command line tool that ships inside the package (gpufl/bin/gpufl)."""
from __future__ import annotations

import os
import sys
from typing import List, Optional

from ._wheel_cupti import prefer_wheel_cupti


def executable() -> str:
    """Path of the bundled `gpufl` executable."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "gpufl")


def main(argv: Optional[List[str]] = None) -> int:
    exe = executable()
    args = sys.argv[1:] if argv is None else list(argv)
    if not os.access(exe, os.X_OK):
        print(f"gpufl: the command line tool is missing from this installation ({exe})", file=sys.stderr)
        return 127
    env = dict(os.environ)
    # `gpufl trace` injects this installation's library (it sits beside libgpufl.so, one level above bin/).
    inject = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libgpufl_inject.so")
    if os.path.exists(inject) and not env.get("GPUFL_INJECT_LIB"):
        env["GPUFL_INJECT_LIB"] = inject
    # The nvidia wheel's libcupti (`pip install gpufl[cu13]`, or PyTorch's) before a toolkit's, as gpufl.init does:
    # the traced program and `gpufl doctor` then see the copy a Python program's libraries load.
    prefer_wheel_cupti(environ=env)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(exe, ["gpufl"] + args, env)
    return 0  # not reached
