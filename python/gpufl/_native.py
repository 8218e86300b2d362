"""Imports the extension. When the runtime was built with CUPTI and the loader cannot find libcupti (CUDA
installed outside the default paths, or CUPTI from the nvidia-cuda-cupti wheel), it looks in the usual places,
preloads it and retries, instead of failing `import gpufl`."""
from __future__ import annotations

import ctypes
import glob
import os
import re
import sys


def _cupti_candidates(soname: str):
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")]
    roots += ["/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"), reverse=True)
    for root in filter(None, roots):
        for sub in ("extras/CUPTI/lib64", "lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"):
            yield os.path.join(root, sub, soname)
    for entry in sys.path:  # pip's nvidia-cuda-cupti-cuXX wheels
        yield from glob.glob(os.path.join(entry, "nvidia", "cuda_cupti", "lib", soname))
        yield from glob.glob(os.path.join(entry, "nvidia", "cu*", "lib", soname))


def load():
    try:
        from . import _gpufl
        return _gpufl
    except ImportError as e:
        m = re.search(r"(libcupti\.so[.\d]*)", str(e))
        if not m:
            raise
        for path in _cupti_candidates(m.group(1)):
            if os.path.exists(path):
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                except OSError:
                    continue
                from . import _gpufl
                return _gpufl
        raise ImportError(f"{e}: gpufl was built with the CUDA/CUPTI backend; put CUPTI's directory on "
                          "LD_LIBRARY_PATH or set CUDA_HOME") from e
