"""Imports the extension. libcupti is not a link dependency of the extension or of libgpufl.so (the runtime loads
it with dlopen, src/cuda/cupti_loader.hpp, where the one search order is documented), so importing never needs to
find it; python/tests/test_exports.py checks that neither names libcupti."""
from __future__ import annotations

from typing import Any


def load() -> Any:
    from . import _gpufl

    return _gpufl
