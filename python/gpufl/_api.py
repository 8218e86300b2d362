"""init / shutdown / Scope: a thin Pythonic layer over the C++ runtime (include/gpufl/gpufl.hpp)."""
from __future__ import annotations

import atexit
import enum
import functools
import os
import threading
from typing import Any, Callable, Optional, Type, TypeVar, Union, cast

from . import _gpufl as _C

__all__ = [
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
]


# Shared with the `gpufl` console script, which must not import the extension (_wheel_cupti.py).
from ._wheel_cupti import prefer_wheel_cupti as _prefer_wheel_cupti  # noqa: E402


def _make_engine_enum() -> Type[enum.IntEnum]:
    # Built from the C++ enum so the values cannot drift. `None` is a keyword, so `ProfilingEngine.None` is not
    # valid syntax: use `ProfilingEngine.NoEngine` / `ProfilingEngine.Off`, getattr(ProfilingEngine, "None"),
    # ProfilingEngine["None"], or simply the string "None".
    members = sorted(_C.ENGINES.items(), key=lambda kv: kv[1])
    none_value = _C.ENGINES["None"]
    members += [("NoEngine", none_value), ("Off", none_value)]
    # (the functional API: a type checker cannot follow members known only at run time)
    return cast(Type[enum.IntEnum],
                enum.IntEnum("ProfilingEngine", members, module=__name__, qualname="ProfilingEngine"))


ProfilingEngine = _make_engine_enum()
ProfilingEngine.__doc__ = """What GPU Flight collects beyond kernels, copies, scopes and system metrics.

None (alias NoEngine, Off): trace + system metrics. PcSampling: + warp stall reasons per PC.
SassMetrics: + per-instruction counters (divergence, memory coalescing). PcSamplingWithSass: both.
RangeProfiler: + hardware counters per scope."""


class GpuFlightWarning(RuntimeWarning):
    """Kept for programs that filter it. init() no longer emits it: without a GPU the runtime prints one line on
    stderr (a second message from Python said the same thing twice)."""


_EngineLike = Union[enum.IntEnum, str, int, None]  # a ProfilingEngine member, its name or value, or None


def _engine_value(engine: _EngineLike) -> int:
    if engine is None:
        return int(getattr(ProfilingEngine, "None"))
    if isinstance(engine, ProfilingEngine):
        return int(engine)
    if isinstance(engine, str):
        key = engine.strip().replace("-", "").replace("_", "").lower()
        if key.startswith("profilingengine."):
            key = key[len("profilingengine."):]
        for name, member in ProfilingEngine.__members__.items():
            if name.lower() == key:
                return int(member)
        names = ", ".join(ProfilingEngine.__members__)
        raise ValueError(f"unknown profiling engine {engine!r}; one of: {names}")
    if isinstance(engine, bool):
        raise TypeError("profiling_engine must be a ProfilingEngine, a name or an int, not bool")
    if isinstance(engine, int):
        return int(ProfilingEngine(engine))
    # An enum from another binding (e.g. a nanobind enum) with a .name we know.
    name = getattr(engine, "name", None)
    if isinstance(name, str):
        return _engine_value(name)
    raise TypeError(f"profiling_engine must be a ProfilingEngine, a name or an int, not {type(engine).__name__}")


# The Python value of each option kind as the binding wants it; None is the option's default.
def _option_value(name: str, kind: str, default, value):
    if value is None:
        return default
    if kind == "str":
        return os.fspath(value) if name == "log_path" else str(value)
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value)
    if kind == "ProfilingEngine":
        return _engine_value(value)
    raise TypeError(f"gpufl.init: option {name} has a kind this module does not know: {kind}")


_state_lock = threading.Lock()
_active = False
_atexit_registered = False
_last_log_path: Optional[str] = None
_requested_path: Optional[str] = None  # what the latest init() was given (or defaulted to)


def last_log_path() -> Optional[str]:
    """The log prefix the latest init() in this process records to (None before the first): its log_path, or
    GPUFL_LOG_PATH when that is set (as `gpufl trace` does), which the runtime obeys first."""
    return _last_log_path


def _requested_log_path() -> Optional[str]:
    return _requested_path


def redirected_log_path(prefix: Union[str, os.PathLike]) -> Optional[str]:
    """Where this process's session really went when `prefix` is the log_path its latest init() asked for but
    GPUFL_LOG_PATH sent it elsewhere; None otherwise."""
    if _requested_path is None or _last_log_path is None:
        return None
    same = os.path.normpath(os.path.abspath(os.fspath(prefix))) == os.path.normpath(os.path.abspath(_requested_path))
    moved = os.path.normpath(os.path.abspath(_last_log_path)) != os.path.normpath(os.path.abspath(_requested_path))
    return _last_log_path if same and moved else None


def init(
    app_name: Optional[str] = "gpufl",
    log_path: Optional[Union[str, os.PathLike]] = None,
    sampling_auto_start: Optional[bool] = True,
    system_sample_rate_ms: Optional[int] = 100,
    enable_kernel_details: Optional[bool] = True,
    enable_stack_trace: Optional[bool] = False,
    enable_debug_output: Optional[bool] = False,
    profiling_engine: _EngineLike = None,
    *,
    deep_launches_per_kernel: Optional[int] = 5,
    rotate_bytes: Optional[int] = 64 << 20,
    enable_nvtx: Optional[bool] = True,
    enable_sync_events: Optional[bool] = False,
    enable_memory_events: Optional[bool] = False,
    kernel_blocks: Optional[bool] = False,
    hang_timeout_s: Optional[int] = 60,
    incident_signals: Optional[bool] = True,
    health_period_s: Optional[int] = 30,
    max_cpu_pct: Optional[int] = 0,
    max_memory_mb: Optional[int] = 0,
) -> bool:
    """Starts a GPU Flight session for this process.

    The keywords are the rows of the C++ option table (include/gpufl/init_options.hpp, docs/runtime.md
    "Options"; `_gpufl.INIT_OPTIONS` here); None for any of them means its default, and the GPUFL_* environment
    variable of an option wins over what is passed.

    `log_path` is a prefix: "./run" writes run.device.log, run.scope.log and run.system.log (default
    "./<app_name>"). `profiling_engine` is a ProfilingEngine, its name as a string, or None.

    `enable_nvtx` (default on, as under `gpufl trace`; docs/nvtx.md): NVTX push/pop ranges, e.g.
    `with torch.cuda.nvtx.range("fwd"):`, become scopes
    like gpufl.Scope. Call init() before the program's first NVTX call, or run under `gpufl trace` (docs/nvtx.md).

    `enable_sync_events`: also record each time the host waits for the GPU (torch.cuda.synchronize, .item(),
    stream and event synchronization), with its duration and scope; the report sums them per kind and scope.
    `enable_memory_events`: also record device, pinned and managed memory allocations and releases (cudaMalloc,
    cudaFree, PyTorch's caching allocator underneath); the report gives counts, bytes and the peak in use.
    `kernel_blocks`: write kernel events as compressed column blocks (about half the compressed log size;
    docs/log-format.md "kernel_block"); `gpufl cat` turns them back into kernel_event lines.
    `hang_timeout_s`: an `incident` record when a host thread waits for the GPU, or launches stay unfinished with
    no GPU record arriving, this many seconds (0: no hang watchdog). `incident_signals`: on SIGSEGV, SIGBUS,
    SIGILL, SIGFPE, SIGABRT and std::terminate, an incident and a flush before the program dies as it would have
    (docs/incidents.md).
    `health_period_s`: a `health` record this often (gpufl's own CPU by thread, memory, records per second,
    drops, what its checks of the records found; docs/trace-health.md), and one at the end (0: only that one).
    `max_cpu_pct`, `max_memory_mb`: limits on gpufl's own cost (0: none); above one for two periods gpufl steps
    down, deep engines first, then system sampling, and says so in a note.

    Returns True when GPU profiling is on. Without a usable GPU (no driver, no device, CUPTI taken) it returns
    False and the program runs on; the runtime prints one line on stderr saying why and what is still
    recorded, and writes the reason to the log (a `note` record).

    GPUFL_LOG_PATH, when set (`gpufl trace` sets it), overrides log_path; last_log_path() gives the prefix
    actually written, and the analyzer and report, asked for the log_path given here, read that one instead.
    """
    global _active, _atexit_registered, _last_log_path, _requested_path
    _prefer_wheel_cupti()
    given = locals()
    options = {name: _option_value(name, kind, default, given[name]) for name, kind, default, _, _ in _C.INIT_OPTIONS}
    ok = _C.init(**options)
    with _state_lock:
        _active = True
        # The runtime's rule (src/runtime/options_env.cpp): a non-empty GPUFL_LOG_PATH wins over log_path.
        default_name = (os.environ.get("GPUFL_APP_NAME") or options["app_name"] or "gpufl").replace("/", "_")
        _requested_path = options["log_path"] or "./" + default_name
        _last_log_path = os.environ.get("GPUFL_LOG_PATH") or _requested_path
        if not _atexit_registered:
            # Flush the logs even when the program forgets shutdown(), before the interpreter tears down.
            atexit.register(_shutdown_at_exit)
            _atexit_registered = True
    # No Python warning when GPU profiling is off: the runtime has printed the one line that says why.
    return bool(ok)


def shutdown() -> None:
    """Flushes and closes the session; blocks until everything recorded is on disk. Safe to call twice."""
    global _active
    _C.shutdown()
    with _state_lock:
        _active = False


def _shutdown_at_exit() -> None:
    if _active:
        try:
            shutdown()
        except Exception:  # never turn interpreter exit into a crash
            pass


def is_profiling() -> bool:
    """True between a successful init() and shutdown()."""
    return bool(_C.is_profiling())


def is_recording() -> bool:
    """True while a session records (scopes, system samples), with or without GPU profiling."""
    return bool(_C.is_recording())


def dump(reason: str = "asked by the program") -> bool:
    """Records an incident now (kind "dump", with `reason`): what is in flight on the GPU, which host threads
    wait for it, the GPU's state; the report shows it under Incidents (docs/incidents.md). False when no session
    records. `gpufl dump PID` asks the same from outside the program."""
    return bool(_C.dump(str(reason)))


def start_system_sampling() -> None:
    """Starts NVML/host sampling when init() was called with sampling_auto_start=False."""
    _C.start_system_sampling()


def stop_system_sampling() -> None:
    _C.stop_system_sampling()


F = TypeVar("F", bound=Callable)


# gpufl.Scope is native (python/src/scope_bindings.cpp, where its docstring is): construction, __enter__ and
# __exit__ in C++, because their Python bookkeeping cost six times the scope itself (bench/python_scope.py). Its
# __call__ (the decorator) comes back here: a Python function wrapper binds to instances when it decorates a method.
Scope: Any = _C.Scope


def _decorate_with_scope(scope: Any, func: F) -> F:
    if not callable(func):
        raise TypeError("Scope(...) decorates a callable")
    name = scope.name if scope.name is not None else getattr(func, "__qualname__", repr(func))
    tag = scope.tag
    begin, end = _C.scope_begin, _C.scope_end

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        sid = begin(name, tag)
        try:
            return func(*args, **kwargs)
        finally:
            end(sid)

    return wrapper  # type: ignore[return-value]
