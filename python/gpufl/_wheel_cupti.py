"""Which libcupti gpufl prefers from Python: the nvidia pip wheels' copy, the one PyTorch and numba-cuda load.

Used by gpufl.init and by the `gpufl` console script (so `gpufl trace` and `gpufl doctor` find the wheel's CUPTI
before a toolkit's). Imports nothing of gpufl's extension: the console script stays cheap."""
from __future__ import annotations

import glob
import os
import sys
from typing import Iterable, Optional

# Where nvidia-cuda-cupti puts libcupti: the CUDA 13 layout first, then the per-component one of older wheels.
WHEEL_CUPTI_DIRS = ("nvidia/cu13/lib", "nvidia/cuda_cupti/lib")


def wheel_cupti_dirs(paths: Optional[Iterable[str]] = None) -> list:
    """The nvidia wheels' CUPTI directories that hold a libcupti, per sys.path entry, in sys.path order."""
    dirs = []
    for entry in sys.path if paths is None else paths:
        for sub in WHEEL_CUPTI_DIRS:
            d = os.path.abspath(os.path.join(entry or ".", sub))
            if d not in dirs and glob.glob(os.path.join(d, "libcupti.so*")):
                dirs.append(d)
    return dirs


def prefer_wheel_cupti(paths: Optional[Iterable[str]] = None, environ=None) -> Optional[str]:
    """Tells gpufl's one libcupti search (C++, src/cuda/cupti_loader.hpp, step 2) to look first in the nvidia pip
    wheels' CUPTI directories on sys.path: the copy PyTorch and numba-cuda load. Otherwise gpufl may load the CUDA
    toolkit's copy first, which PyTorch then shares through the soname; the two CUPTI builds need not agree (a
    linked PyTorch run with NVTX capture aborted in free() on the H200; the suspected cause). Sets
    GPUFL_CUPTI_DIRS when neither it nor GPUFL_CUPTI_LIB (an explicit choice) is set; returns what it set."""
    env = os.environ if environ is None else environ
    if env.get("GPUFL_CUPTI_LIB") or env.get("GPUFL_CUPTI_DIRS"):
        return None
    dirs = wheel_cupti_dirs(paths)
    if not dirs:
        return None
    env["GPUFL_CUPTI_DIRS"] = ":".join(dirs)
    return env["GPUFL_CUPTI_DIRS"]
