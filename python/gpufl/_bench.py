"""gpufl.bench: time a GPU operation without lying (seed 02), and gpufl.bench.sweep: its speed at each size.

    r = gpufl.bench(lambda: a @ b, flops=2 * n**3, name="matmul", shape=f"{n}x{n}x{n}", dtype="bf16")
    print(r)                      # median, p10/p90, TFLOP/s against the device's peak, warnings
    r.median_ms, r.tflops, r.warnings

The rules: warm up (for a time, so lazy initialisation and autotuning are absorbed), time with CUDA events on the
stream the work runs on (PyTorch's current stream, a CuPy or numba stream), repeat, take the median, turn it into
a rate. Tiny operations go through CUDA graph replay (graph=True); cold-cache timing flushes L2 between
repetitions (flush_l2=True). The statistics and warnings come from the C++ core (one implementation with
gpufl::bench); with a session recording (gpufl.init), the result is a `benchmark` record and a line of the
report's Benchmarks section.
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import _gpufl as _C

__all__ = ["bench", "BenchResult", "sweep", "SweepResult"]

# Graph replay packs calls until one replay lasts about this long (launch costs amortised).
GRAPH_REPLAY_TARGET_NS = 200e3
MAX_GRAPH_CALLS = 1000
MIN_AUTO_REPS, MAX_AUTO_REPS = 10, 1000
MAX_WARMUP_REPS = 100000

@dataclass
class BenchResult:
    """One timed operation: times per call in ms, rates at the median, and why not to trust them (warnings)."""

    record: Dict[str, Any]
    recorded: bool = False  # written into a recording session

    def __getattr__(self, name: str) -> Any:
        if name.endswith("_ms") and name[:-3] + "_ns" in self.record:
            return self.record[name[:-3] + "_ns"] / 1e6
        try:
            return self.record[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def spread(self) -> float:
        """p90 / p10 of the repetitions (1: no spread)."""
        p10 = self.record["p10_ns"]
        return self.record["p90_ns"] / p10 if p10 > 0 else float("nan")

    def __str__(self) -> str:
        r = self.record
        title = r["name"] + (f" [{r['shape']}]" if r["shape"] else "") + (f" {r['dtype']}" if r["dtype"] else "")
        text = (f"{title}: median {self.median_ms:.4g} ms (p10 {self.p10_ms:.4g}, p90 {self.p90_ms:.4g}, "
                f"{r['reps']} reps, {r['method']})")
        for rate, peak, unit in (("tflops", "peak_tflops", "TFLOP/s"), ("gbps", "peak_gbps", "GB/s")):
            if r[rate] > 0:
                text += f"  {r[rate]:.1f} {unit}"
                if r[peak] > 0:
                    text += f" ({100 * r[rate] / r[peak]:.0f}% of {r[peak]:.0f})"
        for w in r["warnings"]:
            text += "\n  ! " + w
        return text


# ---- backends: where the events are recorded ------------------------------------------------------------------


class _TorchBackend:
    """CUDA events on a torch stream (default: the current stream, where torch ops launch)."""

    def __init__(self, torch, stream=None):
        self.torch = torch
        self.stream = stream if stream is not None else torch.cuda.current_stream()
        self.device = self.stream.device
        self.start = torch.cuda.Event(enable_timing=True)
        self.stop = torch.cuda.Event(enable_timing=True)
        self.graph: Any = None  # the captured graph, once capture() ran
        self.flush_buf = None

    def timed(self, fn) -> float:
        with self.torch.cuda.stream(self.stream):
            self.start.record(self.stream)
            fn()
            self.stop.record(self.stream)
        self.stop.synchronize()
        return self.start.elapsed_time(self.stop) * 1e6

    def capture(self, fn, calls: int) -> None:
        self.stream.synchronize()
        g = self.torch.cuda.CUDAGraph()
        with self.torch.cuda.graph(g):  # its own capture stream (capture cannot use the legacy default stream)
            for _ in range(calls):
                fn()
        self.graph = g

    def replay(self) -> float:
        return self.timed(self.graph.replay)

    def flush_l2(self) -> None:
        if self.flush_buf is None:
            l2 = self.torch.cuda.get_device_properties(self.device).L2_cache_size or (64 << 20)
            self.flush_buf = self.torch.empty(2 * l2, dtype=self.torch.uint8, device=self.device)
        with self.torch.cuda.stream(self.stream):
            self.flush_buf.add_(1)  # read and write every byte: nothing of the timed data stays in L2

    def launch_overhead_ns(self) -> float:
        tiny = self.torch.empty(1, device=self.device)
        return _median([self.timed(tiny.zero_) for _ in range(21)])

    def device_name(self) -> str:
        return self.torch.cuda.get_device_name(self.device)

    def device_index(self) -> int:
        return self.device.index or 0

    def sm_count(self) -> int:
        return self.torch.cuda.get_device_properties(self.device).multi_processor_count


class _CupyBackend:
    """CUDA events on a CuPy stream (default: CuPy's current stream)."""

    def __init__(self, cupy, stream=None):
        self.cp = cupy
        self.stream = stream if stream is not None else cupy.cuda.get_current_stream()
        self.start, self.stop = cupy.cuda.Event(), cupy.cuda.Event()
        self.graph: Any = None  # the captured graph, once capture() ran
        self.flush_buf = None

    def timed(self, fn) -> float:
        with self.stream:
            self.start.record(self.stream)
            fn()
            self.stop.record(self.stream)
        self.stop.synchronize()
        return self.cp.cuda.get_elapsed_time(self.start, self.stop) * 1e6

    def capture(self, fn, calls: int) -> None:
        side = self.cp.cuda.Stream(non_blocking=True)  # capture cannot use the legacy default stream
        with side:
            side.begin_capture()
            for _ in range(calls):
                fn()
            self.graph = side.end_capture()

    def replay(self) -> float:
        return self.timed(lambda: self.graph.launch(self.stream))

    def flush_l2(self) -> None:
        if self.flush_buf is None:
            l2 = self._props().get("l2CacheSize", 64 << 20)
            self.flush_buf = self.cp.zeros(2 * l2, dtype=self.cp.uint8)
        with self.stream:
            self.flush_buf += 1

    def launch_overhead_ns(self) -> float:
        tiny = self.cp.empty(1, dtype=self.cp.float32)
        return _median([self.timed(lambda: tiny.fill(0)) for _ in range(21)])

    def _props(self) -> dict:
        return self.cp.cuda.runtime.getDeviceProperties(self.device_index())

    def device_name(self) -> str:
        name = self._props()["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def device_index(self) -> int:
        return self.cp.cuda.Device().id

    def sm_count(self) -> int:
        return self._props()["multiProcessorCount"]


class _NumbaBackend:
    """CUDA events on a numba stream (default: numba's default stream). No graph replay or L2 flush here."""

    def __init__(self, ncuda, stream=None):
        self.cuda = ncuda
        self.stream = stream if stream is not None else ncuda.default_stream()
        self.start, self.stop = ncuda.event(timing=True), ncuda.event(timing=True)

    def timed(self, fn) -> float:
        self.start.record(self.stream)
        fn()
        self.stop.record(self.stream)
        self.stop.synchronize()
        return self.cuda.event_elapsed_time(self.start, self.stop) * 1e6

    def capture(self, fn, calls: int) -> None:
        raise NotImplementedError("graph=True needs PyTorch or CuPy (numba-cuda has no stream capture)")

    def replay(self) -> float:  # pragma: no cover - capture() refuses first
        raise NotImplementedError

    def flush_l2(self) -> None:
        raise NotImplementedError("flush_l2=True needs PyTorch or CuPy; with numba, rotate inputs in fn instead")

    def launch_overhead_ns(self) -> float:
        return 0.0  # unknown: no kernel of our own to launch

    def device_name(self) -> str:
        name = self.cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)

    def device_index(self) -> int:
        return self.cuda.get_current_device().id

    def sm_count(self) -> int:
        return self.cuda.get_current_device().MULTIPROCESSOR_COUNT


def _pick_backend(stream):
    """The framework of `stream`, else the one the program already uses (torch, then cupy, then numba)."""
    kind = type(stream).__module__ if stream is not None else ""
    if kind.startswith("torch"):
        import torch

        return _TorchBackend(torch, stream)
    if kind.startswith("cupy"):
        import cupy

        return _CupyBackend(cupy, stream)
    if kind.startswith("numba"):
        from numba import cuda

        return _NumbaBackend(cuda, stream)
    if stream is not None:
        raise TypeError(f"gpufl.bench: stream of type {type(stream).__name__} is not a torch, cupy or numba stream")
    loaded = [m for m in ("torch", "cupy", "numba.cuda") if m in sys.modules]
    for name in loaded + [m for m in ("torch", "cupy", "numba.cuda") if m not in loaded]:
        try:
            if name == "torch":
                import torch

                if torch.cuda.is_available():
                    return _TorchBackend(torch)
            elif name == "cupy":
                import cupy

                if cupy.cuda.runtime.getDeviceCount() > 0:
                    return _CupyBackend(cupy)
            else:
                from numba import cuda

                if cuda.is_available():
                    return _NumbaBackend(cuda)
        except Exception:  # noqa: BLE001 - a framework that cannot see a GPU is not the one to use
            continue
    raise RuntimeError("gpufl.bench needs a GPU and PyTorch, CuPy or numba-cuda to record CUDA events "
                       "(none of them found a CUDA device)")


# ---- NVML: clocks and other processes, when pynvml is there --------------------------------------------------


class _Nvml:
    """SM clock, its limit, throttle reasons and other processes of one GPU; empty readings without pynvml."""

    def __init__(self, device_index: int):
        self.h = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self.nv = pynvml
            self.h = pynvml.nvmlDeviceGetHandleByIndex(_nvml_index(device_index))
        except Exception:  # noqa: BLE001 - no NVML: clocks are not read, and the record says nothing of them
            self.h = None

    def clock(self) -> Optional[int]:
        if self.h is None:
            return None
        try:
            return int(self.nv.nvmlDeviceGetClockInfo(self.h, self.nv.NVML_CLOCK_SM))
        except Exception:  # noqa: BLE001
            return None

    def limit(self) -> Optional[int]:
        if self.h is None:
            return None
        try:
            return int(self.nv.nvmlDeviceGetMaxClockInfo(self.h, self.nv.NVML_CLOCK_SM))
        except Exception:  # noqa: BLE001
            return None

    def reasons(self) -> List[str]:
        if self.h is None:
            return []
        get = getattr(self.nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            self.nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        try:
            bits = int(get(self.h)) if get else 0
        except Exception:  # noqa: BLE001
            return []
        return list(_C.throttle_reason_names(bits))  # the system samples' names (src/nvml/nvml_sampler.cpp)

    def others(self) -> List[str]:
        if self.h is None:
            return []
        try:
            procs = self.nv.nvmlDeviceGetComputeRunningProcesses(self.h)
        except Exception:  # noqa: BLE001
            return []
        out = []
        for p in procs:
            if p.pid == os.getpid():
                continue
            try:
                name = os.path.basename(self.nv.nvmlSystemGetProcessName(p.pid))
                name = name.decode() if isinstance(name, bytes) else name
            except Exception:  # noqa: BLE001
                name = "?"
            out.append(f"pid {p.pid} ({name})")
        return out


def _nvml_index(cuda_index: int) -> int:
    """NVML counts every GPU; CUDA only the visible ones: map through CUDA_VISIBLE_DEVICES when it lists indexes."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
    if 0 <= cuda_index < len(visible) and visible[cuda_index].strip().isdigit():
        return int(visible[cuda_index])
    return cuda_index


def _median(values: Sequence[float]) -> float:
    v = sorted(values)
    if not v:
        return 0.0
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


# ---- the harness --------------------------------------------------------------------------------------------


def bench(fn: Callable[[], Any], *, warmup: Optional[float] = None, reps: Optional[int] = None,
          flops: float = 0, bytes: float = 0, stream=None, flush_l2: bool = False, graph: bool = False,
          name: Optional[str] = None, shape: str = "", dtype: str = "", target_ms: float = 500,
          record: bool = True, backend=None, nvml=None) -> BenchResult:
    """Times `fn` (which launches GPU work) honestly and returns a BenchResult (times per call in ms).

    warmup: seconds of warm-up (float) or a number of calls (int); default 0.2 s and at least 3 calls, which
        absorbs lazy initialisation, memory pool growth and autotuning.
    reps: timed repetitions; default as many as fit in target_ms (10..1000).
    flops, bytes: work of one call, for TFLOP/s and GB/s (compared with the device's data-sheet peaks).
    stream: the stream fn launches on (torch, cupy or numba); default the framework's current stream.
    flush_l2: overwrite twice the L2 size before every repetition (cold-cache timing).
    graph: capture many calls into one CUDA graph and time replays, for operations shorter than a launch.
    name, shape, dtype: what the report shows (a kernel has a speed only at a size: give the shape).
    record: write a `benchmark` record into the recording session (gpufl.init), if any.
    backend, nvml: injection points for tests and other frameworks (see python/tests/test_bench.py).
    """
    dev = backend if backend is not None else _pick_backend(stream)
    mon = nvml if nvml is not None else _Nvml(dev.device_index())
    if isinstance(warmup, bool) or (warmup is not None and warmup < 0):
        raise ValueError(f"gpufl.bench: warmup must be seconds (float) or calls (int) >= 0, not {warmup!r}")
    if reps is not None and (isinstance(reps, bool) or not isinstance(reps, int) or reps < 1):
        raise ValueError(f"gpufl.bench: reps must be a positive int, not {reps!r}")
    min_calls, min_ns = (warmup, 0.0) if isinstance(warmup, int) else (3, (0.2 if warmup is None else warmup) * 1e9)

    warm: List[float] = []
    while len(warm) < max(min_calls, 1) or sum(warm) < min_ns:
        warm.append(dev.timed(fn))
        if len(warm) >= MAX_WARMUP_REPS:
            break
    call_ns = max(_median(warm[len(warm) // 2:]), 1.0)  # the later half: after autotuning settled

    ops = 1
    if graph:
        ops = int(min(max(math.ceil(GRAPH_REPLAY_TARGET_NS / call_ns), 1), MAX_GRAPH_CALLS))
        dev.capture(fn, ops)
    n = reps if reps is not None else int(min(max(target_ms * 1e6 / (call_ns * ops), MIN_AUTO_REPS), MAX_AUTO_REPS))

    clocks: List[int] = []
    reasons: List[str] = []

    def sample():
        c = mon.clock()
        if c is not None:
            clocks.append(c)
        reasons.extend(mon.reasons())

    overhead = dev.launch_overhead_ns()
    sample()
    times: List[float] = []
    for i in range(n):
        if flush_l2:
            dev.flush_l2()
        times.append(dev.replay() if graph else dev.timed(fn))
        if i == n // 2:
            sample()
    sample()

    device_name = dev.device_name()
    peaks = _C.device_peaks(device_name) or {}
    meta = {
        "name": name or getattr(fn, "__name__", "bench"),
        "shape": str(shape),
        "dtype": str(dtype).replace("torch.", ""),
        "device": dev.device_index(),
        "method": "graph" if graph else "events",
        "warmup_reps": len(warm),
        "flush_l2": bool(flush_l2),
        "flops": float(flops),
        "bytes": float(bytes),
        "peak_tflops": _C.peak_tflops(device_name, str(dtype)) if flops else 0.0,
        "peak_gbps": float(peaks.get("gbps", 0.0)) if bytes else 0.0,
    }
    rec = _C.summarize_benchmark(times, ops, overhead, clocks, mon.limit(), reasons, mon.others(), meta)
    recorded = bool(record) and _C.record_benchmark(rec)
    return BenchResult(rec, recorded)


bench.BenchResult = BenchResult  # type: ignore[attr-defined]


# ---- sweep: a speed at a size ---------------------------------------------------------------------------------

FLAT_WITHIN = 0.10  # the rate has flattened once it is within 10% of the best (as the report's series)
LAUNCH_BOUND_FACTOR = 2.0  # a median under twice the launch overhead is mostly launching


@dataclass
class SweepResult:
    """The rate of one operation at each size: table(), plot(), flattening size, and what limits small sizes."""

    name: str
    dtype: str
    sizes: List[Any]
    results: List[BenchResult]
    unit: str = "TFLOP/s"
    peak: float = 0.0
    sm_count: int = 0
    launch_overhead_ns: float = 0.0
    blocks: Dict[Any, int] = field(default_factory=dict)  # size -> blocks of its main kernel (from the trace)

    def rates(self) -> List[float]:
        key = "tflops" if self.unit == "TFLOP/s" else "gbps"
        return [r.record[key] for r in self.results]

    @property
    def best_size(self):
        rates = self.rates()
        return self.sizes[max(range(len(rates)), key=rates.__getitem__)] if rates else None

    @property
    def flattening_size(self):
        """The smallest size whose rate is within FLAT_WITHIN of the best."""
        rates = self.rates()
        if not rates:
            return None
        floor = (1 - FLAT_WITHIN) * max(rates)
        return next(s for s, r in zip(self.sizes, rates) if r >= floor)

    def small_sizes_bound(self) -> str:
        """One line: are the sizes below the flattening one launch-bound (time near the launch overhead) or
        occupancy-bound (fewer blocks than SMs, from the kernels gpufl traced at each size)?"""
        cut = self.sizes.index(self.flattening_size) if self.results else 0
        small = list(zip(self.sizes[:cut], self.results[:cut]))
        if not small:
            return f"{self.name}: the rate is flat from the smallest size ({self.sizes[0]})."
        launch, occupancy, neither = [], [], []
        for s, r in small:
            if self.launch_overhead_ns > 0 and r.record["median_ns"] < LAUNCH_BOUND_FACTOR * self.launch_overhead_ns:
                launch.append(s)
            elif s in self.blocks and self.sm_count and self.blocks[s] < self.sm_count:
                occupancy.append(s)
            else:
                neither.append(s)
        parts = []
        if launch:
            parts.append(f"launch-bound at {_sizes(launch)} (median under {LAUNCH_BOUND_FACTOR:g}x the launch "
                         f"overhead of {self.launch_overhead_ns / 1e3:.1f} us)")
        if occupancy:
            parts.append(f"occupancy-bound at {_sizes(occupancy)} (" + ", ".join(
                f"{self.blocks[s]} blocks" for s in occupancy) + f" for {self.sm_count} SMs)")
        if neither:
            why = "no traced kernels to count blocks" if not self.blocks else "enough blocks and well above launch cost"
            parts.append(f"neither at {_sizes(neither)} ({why})")
        return f"{self.name}: below {self.flattening_size} the sizes are " + "; ".join(parts) + "."

    def attach_trace(self, log_prefix: str, session: str = "") -> "SweepResult":
        """Counts the blocks of the main kernel (most GPU time) gpufl traced inside each size's scope
        ("<name>@<size>", tag "gpufl.sweep"), from the session log written by gpufl.init/shutdown."""
        t = _C.load_session(log_prefix, session)["tables"]
        paths = t["scope_paths"]
        codes, values = paths["name"]
        path_size = {}
        for p, c in zip(paths["p"].tolist(), codes.tolist()):
            label = values[c] if c >= 0 else ""
            for s in self.sizes:
                if label == f"{self.name}@{s}":
                    path_size[p] = s
        defs = t["kernel_defs"]
        blocks_of = {k: gx * gy * gz for k, gx, gy, gz in zip(defs["k"].tolist(), defs["grid_x"].tolist(),
                                                                 defs["grid_y"].tolist(), defs["grid_z"].tolist())}
        k = t["kernels"]
        busy: Dict[Any, Dict[int, int]] = {}
        for kid, scope, dur in zip(k["k"].tolist(), k["scope"].tolist(), k["dur_ns"].tolist()):
            if scope in path_size:
                per = busy.setdefault(path_size[scope], {})
                per[kid] = per.get(kid, 0) + dur
        for s, per in busy.items():
            main = max(per, key=lambda kid: per[kid])
            if main in blocks_of:
                self.blocks[s] = blocks_of[main]
        return self

    def table(self) -> str:
        unit = self.unit
        lines = [f"{self.name} {self.dtype}".strip(),
                 f"{'size':>10} {'median ms':>11} {'p10..p90 ms':>21} {unit:>10} {'% peak':>7} {'blocks':>7}"]
        for s, r, rate in zip(self.sizes, self.results, self.rates()):
            pct = f"{100 * rate / self.peak:.1f}" if self.peak > 0 else "-"
            mark = "  <- flattens" if s == self.flattening_size else ""
            lines.append(f"{str(s):>10} {r.median_ms:>11.4f} {r.p10_ms:>10.4f}..{r.p90_ms:<10.4f} {rate:>10.1f} "
                         f"{pct:>7} {str(self.blocks.get(s, '-')):>7}{mark}")
        lines.append(f"peak {self.peak:.1f} {unit}" if self.peak > 0 else "peak: unknown for this device")
        lines.append(self.small_sizes_bound())
        for s, r in zip(self.sizes, self.results):
            for w in r.record["warnings"]:
                lines.append(f"  ! {s}: {w}")
        return "\n".join(lines)

    def plot(self, ax=None, path: Optional[str] = None):
        """Rate against size (log x), the device's peak as a line, the flattening size marked."""
        import matplotlib

        if ax is None:
            if path is not None:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=(7, 4))
        rates = self.rates()
        ax.plot(self.sizes, rates, marker="o", label=f"{self.name} {self.dtype}".strip())
        ax.set_xscale("log", base=2)
        if self.peak > 0:
            ax.axhline(self.peak, linestyle="--", color="gray", label=f"peak {self.peak:.0f} {self.unit}")
        flat = self.flattening_size
        if flat is not None:
            ax.axvline(flat, linestyle=":", color="red", label=f"flattens at {flat}")
        ax.set_xlabel("size")
        ax.set_ylabel(self.unit)
        ax.set_title(f"{self.name}: a speed at a size")
        ax.legend()
        if path is not None:
            ax.figure.savefig(path, dpi=120, bbox_inches="tight")
        return ax

    def __str__(self) -> str:
        return self.table()


def _sizes(sizes) -> str:
    return ", ".join(str(s) for s in sizes)


def sweep(make_fn: Callable[[Any], Callable[[], Any]], sizes: Sequence[Any], *,
          flops: Optional[Callable[[Any], float]] = lambda n: 2 * n**3, bytes: Optional[Callable[[Any], float]] = None,
          name: str = "op", dtype: str = "", shape: Callable[[Any], str] = str, **bench_kwargs) -> SweepResult:
    """gpufl.bench at each size: make_fn(size) returns the function to time (inputs allocated outside the timing).

    Each size runs inside a gpufl scope "<name>@<size>" (tag "gpufl.sweep"), so a recording session traces its
    kernels; SweepResult.attach_trace(log_prefix) then counts their blocks after gpufl.shutdown().
    """
    from ._api import Scope

    if not sizes:
        raise ValueError("gpufl.bench.sweep: no sizes")
    results = []
    backend = bench_kwargs.get("backend")
    for s in sizes:
        fn = make_fn(s)
        with Scope(f"{name}@{s}", "gpufl.sweep"):
            results.append(bench(fn, flops=flops(s) if flops else 0, bytes=bytes(s) if bytes else 0, name=name,
                                 shape=shape(s), dtype=dtype, **bench_kwargs))
    unit = "TFLOP/s" if flops else "GB/s"
    first = results[0].record
    peak = first["peak_tflops"] if flops else first["peak_gbps"]
    dev = backend if backend is not None else _pick_backend(bench_kwargs.get("stream"))
    return SweepResult(name=name, dtype=dtype, sizes=list(sizes), results=results, unit=unit, peak=peak,
                       sm_count=dev.sm_count(), launch_overhead_ns=dev.launch_overhead_ns())


bench.sweep = sweep  # type: ignore[attr-defined]
bench.SweepResult = SweepResult  # type: ignore[attr-defined]
