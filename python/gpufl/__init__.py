"""GPU Flight: a flight recorder for CUDA programs.

    import gpufl as gfl
    gfl.init(app_name="demo", log_path="./demo", profiling_engine=gfl.ProfilingEngine.PcSamplingWithSass)
    with gfl.Scope("step", "math"):
        ...                                   # kernels launched here are attributed to "step"
    gfl.shutdown()
    print(gfl.report.generate_report(".", log_prefix="demo"))

    from gpufl.analyzer import GpuFlightSession          # pip install "gpufl[analyzer]"
    GpuFlightSession(".", log_prefix="demo").inspect_hotspots()
"""
from typing import Any

from ._native import load as _load_native

_gpufl: Any = _load_native()
from ._api import (  # noqa: E402
    GpuFlightWarning,
    ProfilingEngine,
    Scope,
    dump,
    init,
    is_profiling,
    is_recording,
    last_log_path,
    shutdown,
    start_system_sampling,
    stop_system_sampling,
)
from . import report  # noqa: E402
from ._bench import bench  # noqa: E402  (gpufl.bench(fn, ...), gpufl.bench.sweep(...))
from .report import generate_report  # noqa: E402

__version__: str = _gpufl.VERSION

__all__ = [
    "__version__",
    "ProfilingEngine",
    "GpuFlightWarning",
    "init",
    "shutdown",
    "is_profiling",
    "is_recording",
    "dump",
    "start_system_sampling",
    "stop_system_sampling",
    "Scope",
    "last_log_path",
    "generate_report",
    "bench",
    "report",
    "analyzer",
    "viz",
]


def __getattr__(name):
    # The analyzer and the plots import pandas/matplotlib: only when asked for (`gpufl.analyzer`).
    if name in ("analyzer", "viz"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'gpufl' has no attribute {name!r}")
