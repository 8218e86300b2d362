"""Interactive analysis of a GPU Flight session in Python (pandas DataFrames + rich tables).

    from gpufl.analyzer import GpuFlightSession
    session = GpuFlightSession(".", log_prefix="smoke_test")
    session.print_summary()
    session.inspect_hotspots(top_n=10)
    session.kernels            # one row per kernel execution (DataFrame)

The logs are read by the C++ reader inside the extension (the same one the CLI and the report use), straight
into column arrays. The text report (gpufl.report.generate_report) stays the reference; this module is for
exploring: every inspect_*() prints, and the matching method without the prefix returns the DataFrame.
"""
from __future__ import annotations

import os
from typing import IO, Dict, List, Optional, Union

try:
    import numpy as np
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("gpufl.analyzer needs pandas and numpy: pip install \"gpufl[analyzer]\"") from e

from . import _gpufl as _C
from . import _tables
from ._fmt import Output, bar, fmt_bytes, fmt_int, fmt_ns, fmt_pct
from .report import generate_report, log_prefix_path

__all__ = ["GpuFlightSession", "busy_time_ns"]


def busy_time_ns(start_ns: np.ndarray, end_ns: np.ndarray) -> int:
    """Length of the union of [start, end) intervals: time during which at least one of them was running."""
    start = np.asarray(start_ns, dtype=np.int64)
    end = np.asarray(end_ns, dtype=np.int64)
    if len(start) == 0:
        return 0
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, len(s) - 1)
    return int(np.maximum(reach[last] - s[first], 0).sum())


def pretty_stall(name: str) -> str:
    """CUPTI stall names for people: `smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued` and
    `long_scoreboard_not_issued` -> `Long Scoreboard (idle)`."""
    return _C.stall_label(str(name))  # the C++ report's labels (LG, MIO, ...): one source of truth


class GpuFlightSession:
    """One session of a GPU Flight log, loaded into DataFrames.

    log_dir / log_prefix name the log the way init(log_path=...) wrote it: log_path "./smoke_test" is
    GpuFlightSession(".", log_prefix="smoke_test"). session_id picks one of several sessions sharing a prefix
    (a full id or its first characters); the latest is the default.

    Tables (pandas DataFrames): kernels, kernel_defs, memcpy, syncs, memory, scopes, scope_paths, system (GPU samples),
    host (host samples), sass_metrics, pc_samples, range_counters, notes, stacks, benchmarks; `info` is a dict
    of session facts (app, session_id, devices, options, end-of-session counters).
    """

    def __init__(self, log_dir: Union[str, os.PathLike] = ".", log_prefix: Optional[str] = None,
                 session_id: Optional[str] = None, *, use_rich: Optional[bool] = None,
                 file: Optional[IO[str]] = None, max_warnings: int = 100):
        self.log_dir = os.fspath(log_dir) if log_dir is not None else "."
        self.prefix = log_prefix_path(self.log_dir, log_prefix)
        self.session_id = session_id
        self._data = _tables.load(self.prefix, session_id, max_warnings)
        self._out = Output(use_rich=use_rich, file=file)

    # ----------------------------------------------------------------------------------------------- tables
    @property
    def info(self) -> dict:
        return self._data.info

    @property
    def devices(self) -> List[dict]:
        return list(self._data.info.get("devices", []))

    @property
    def sessions(self) -> List[dict]:
        """Every session recorded under the prefix, oldest first."""
        return list(self._data.read["sessions"])

    @property
    def warnings(self) -> list:
        """(file, line, message) of what the reader skipped (the first max_warnings)."""
        return list(self._data.warnings)

    kernels = property(lambda self: self._data.kernels, doc="One row per kernel execution.")
    kernel_defs = property(lambda self: self._data.kernel_defs, doc="One row per launch shape of a kernel.")
    memcpy = property(lambda self: self._data.memcpy, doc="Copies and memsets (kind 'memset').")
    syncs = property(lambda self: self._data.syncs,
                     doc="Host waits on the GPU (enable_sync_events): kind, duration, stream, scope.")
    memory = property(lambda self: self._data.memory,
                      doc="Allocations and releases (enable_memory_events): is_free, bytes, address, scope.")
    scopes = property(lambda self: self._data.scopes, doc="One row per scope instance (begin joined with end).")
    scope_paths = property(lambda self: self._data.scope_paths, doc="Distinct nesting paths.")
    system = property(lambda self: self._data.gpu_samples, doc="NVML samples, one row per GPU per period.")
    gpu_samples = system
    host = property(lambda self: self._data.host_samples, doc="Host CPU/RAM samples.")
    host_samples = host
    sass_metrics = property(lambda self: self._data.sass_metrics, doc="SASS counters per function and PC.")
    pc_samples = property(lambda self: self._data.pc_samples, doc="PC sampling stall counts per PC.")
    range_counters = property(lambda self: self._data.range_counters, doc="Range-profiler counters (long).")
    notes = property(lambda self: self._data.notes, doc="What was on/off/degraded, and why.")
    stacks = property(lambda self: self._data.stacks, doc="Host call stacks (enable_stack_trace).")
    benchmarks = property(lambda self: self._data.benchmarks, doc="Harness timings (clean, uninstrumented).")

    # ------------------------------------------------------------------------------------------ summaries
    @property
    def start_ns(self) -> int:
        return int(self.info.get("start_ns") or 0)

    @property
    def duration_ns(self) -> int:
        end = self.info.get("end_ns")
        if end is None:
            end = self.info.get("last_ts_ns") or self.start_ns
        return max(int(end) - self.start_ns, 0)

    def summary(self) -> Dict[str, object]:
        """The figures print_summary() shows, as a dict (times in ns, memory in bytes, fractions 0..1)."""
        k = self.kernels
        dur = self.duration_ns
        gpu_time = int(k["duration_ns"].sum()) if len(k) else 0
        busy = busy_time_ns(k["start_ns"].to_numpy(), k["end_ns"].to_numpy()) if len(k) else 0
        sysdf = self.system
        host = self.host
        mem = self.memcpy

        def stat(df, col, fn):
            if col not in df or not len(df):
                return float("nan")
            v = df[col].dropna()
            return float(getattr(v, fn)()) if len(v) else float("nan")

        dev = self.devices[0]["name"] if self.devices else ""
        return {
            "app": self.info.get("app", ""),
            "session_id": self.info.get("session_id", ""),
            "engine": self.info.get("engine", ""),
            "device": dev,
            "duration_ns": dur,
            "kernel_count": int(len(k)),
            "unique_kernels": int(k["mangled"].nunique()) if len(k) else 0,
            "gpu_time_ns": gpu_time,
            "gpu_busy_ns": busy,
            "gpu_busy_fraction": busy / dur if dur > 0 else float("nan"),
            "instrumented_kernels": int(k["instrumented"].sum()) if len(k) else 0,
            "memcpy_count": int((~mem["is_memset"]).sum()) if len(mem) else 0,
            "memcpy_bytes": int(mem.loc[~mem["is_memset"], "bytes"].sum()) if len(mem) else 0,
            "memset_count": int(mem["is_memset"].sum()) if len(mem) else 0,
            "scope_count": int(len(self.scopes)),
            "avg_gpu_util_pct": stat(sysdf, "util_gpu", "mean"),
            "peak_gpu_util_pct": stat(sysdf, "util_gpu", "max"),
            "peak_vram_bytes": stat(sysdf, "mem_used_bytes", "max"),
            "vram_total_bytes": stat(sysdf, "mem_total_bytes", "max"),
            "avg_power_mw": stat(sysdf, "power_mw", "mean"),
            "peak_power_mw": stat(sysdf, "power_mw", "max"),
            "peak_temp_c": stat(sysdf, "temp_c", "max"),
            "avg_sm_clock_mhz": stat(sysdf, "clk_sm", "mean"),
            "avg_host_cpu_pct": stat(host, "cpu_pct", "mean"),
            "peak_host_ram_bytes": stat(host, "ram_used_bytes", "max"),
            "dropped": dict(self.info.get("dropped", {})),
            "warnings": int(self._data.read.get("warning_count", 0)),
        }

    def print_summary(self) -> None:
        """Duration, kernel count, GPU busy time and %, average utilization, peak VRAM, and what was off."""
        s = self.summary()
        pairs = [
            ("Application", str(s["app"])),
            ("Session ID", str(s["session_id"])),
            ("Engine", str(s["engine"])),
        ]
        if s["device"]:
            pairs.append(("GPU Device", str(s["device"])))
        pairs += [
            ("Duration", fmt_ns(s["duration_ns"])),
            ("Kernels", f"{fmt_int(s['kernel_count'])} ({fmt_int(s['unique_kernels'])} unique)"),
            ("GPU Time", fmt_ns(s["gpu_time_ns"]) + "  (sum of kernel durations)"),
            ("GPU Busy", f"{fmt_ns(s['gpu_busy_ns'])}  ({fmt_pct(s['gpu_busy_fraction'])} of the session)"),
            ("Memory Copies", f"{fmt_int(s['memcpy_count'])} ({fmt_bytes(s['memcpy_bytes'])})"),
            ("Scopes", fmt_int(s["scope_count"])),
            ("Avg GPU Util", _pct100(s["avg_gpu_util_pct"])),
            ("Peak VRAM", _mib(s["peak_vram_bytes"], s["vram_total_bytes"])),
        ]
        if not np.isnan(s["avg_power_mw"]):
            pairs.append(("Power", f"avg {s['avg_power_mw'] / 1000:.1f} W  peak {s['peak_power_mw'] / 1000:.1f} W"))
        if not np.isnan(s["peak_temp_c"]):
            pairs.append(("Peak Temperature", f"{s['peak_temp_c']:.0f} C"))
        if not np.isnan(s["avg_host_cpu_pct"]):
            pairs.append(("Host CPU", f"avg {s['avg_host_cpu_pct']:.1f}%"))
        if not np.isnan(s["peak_host_ram_bytes"]):
            pairs.append(("Peak Host RAM", _mib(s["peak_host_ram_bytes"], None)))
        if s["instrumented_kernels"]:
            pairs.append(("Note", f"{fmt_int(s['instrumented_kernels'])} kernel launches ran instrumented "
                                  "(deep engine): their durations are inflated"))
        dropped = {k: v for k, v in s["dropped"].items() if v}
        if dropped:
            pairs.append(("Dropped", ", ".join(f"{k} {fmt_int(v)}" for k, v in dropped.items())))
        for _, row in self.notes.iterrows():
            if str(row["status"]) != "on":
                pairs.append((f"{row['feature']}", f"{row['status']}: {row['reason']}"))
        if s["warnings"]:
            pairs.append(("Reader Warnings", f"{s['warnings']} (see .warnings)"))
        self._out.kv("GPU Flight Session Summary", pairs)

    # ------------------------------------------------------------------------------------------- hotspots
    def hotspots(self, top_n: Optional[int] = 10, by_shape: bool = False) -> pd.DataFrame:
        """Kernels by total GPU time, with the launch shape and occupancy of their most expensive shape
        (by_shape=True: one row per launch shape, i.e. per kernel_def, as the text report lists them)."""
        k = self.kernels
        cols = ["kernel", "calls", "total_ns", "avg_ns", "min_ns", "max_ns", "pct_gpu_time", "grid", "block",
                "occupancy", "reg_occupancy", "smem_occupancy", "warp_occupancy", "block_occupancy",
                "limiting_resource", "num_regs", "static_shared_bytes", "dyn_shared_bytes", "shapes",
                "instrumented_calls", "mangled"]
        if not len(k):
            return pd.DataFrame(columns=cols)
        # Aggregate per launch shape on the integer def id (one pass over millions of rows), then per function.
        shape = k[["k", "duration_ns", "instrumented"]].groupby("k", sort=False).agg(
            calls=("duration_ns", "count"), total_ns=("duration_ns", "sum"), min_ns=("duration_ns", "min"),
            max_ns=("duration_ns", "max"), instrumented_calls=("instrumented", "sum"))
        info = self.kernel_defs.set_index("k").reindex(shape.index)
        fallback = pd.Series("kernel_def " + shape.index.astype(str), index=shape.index)
        shape["mangled"] = info["name"].astype(object).where(info["name"].notna(), fallback)
        shape["kernel"] = info["short_name"].astype(object).where(info["short_name"].notna(), shape["mangled"])
        for c in ("grid", "block", "limiting_resource"):
            shape[c] = info[c].astype(object)
        for c in ("occupancy", "reg_occupancy", "smem_occupancy", "warp_occupancy", "block_occupancy",
                  "num_regs", "static_shared_bytes", "dyn_shared_bytes"):
            shape[c] = info[c]
        if by_shape:
            agg = shape.assign(shapes=1)
        else:
            by = shape.groupby("mangled", sort=False)
            top = shape.loc[by["total_ns"].idxmax().to_numpy()].set_index("mangled")
            agg = pd.DataFrame({
                "calls": by["calls"].sum(), "total_ns": by["total_ns"].sum(), "min_ns": by["min_ns"].min(),
                "max_ns": by["max_ns"].max(), "instrumented_calls": by["instrumented_calls"].sum(),
                "shapes": by.size(),
            })
            for c in cols:
                if c not in agg and c in top:
                    agg[c] = top[c]
            agg["mangled"] = agg.index
        agg["avg_ns"] = agg["total_ns"] / agg["calls"]
        total = float(k["duration_ns"].sum())
        agg["pct_gpu_time"] = agg["total_ns"] / total if total > 0 else np.nan
        agg = agg.sort_values("total_ns", ascending=False, kind="stable").reset_index(drop=True)
        if top_n is not None:
            agg = agg.head(int(top_n))
        return agg[cols]

    def inspect_hotspots(self, top_n: int = 10, by_shape: bool = False) -> None:
        """The hottest kernels: calls, total/avg time, occupancy and its per-resource breakdown, the limiting
        resource, registers and shared memory."""
        df = self.hotspots(top_n, by_shape=by_shape)
        if not len(df):
            self._out.text("No kernels recorded in this session.")
            return
        columns = [("#", "right"), ("Kernel", "left", "nowrap"), ("Calls", "right"), ("Total", "right"),
                   ("Avg", "right"), ("GPU %", "right"), ("Occupancy", "right"), ("Reg", "right"), ("SMem", "right"),
                   ("Warp", "right"), ("Block", "right"), ("Limiting", "left"), ("Regs", "right"),
                   ("SMem dyn+static", "right")]
        rows = []
        for i, r in enumerate(df.itertuples(index=False), 1):
            label = f"{r.kernel} {r.grid}x{r.block}" if by_shape else str(r.kernel)
            rows.append([
                str(i), _clip(label, 64), fmt_int(r.calls), fmt_ns(r.total_ns), fmt_ns(r.avg_ns),
                fmt_pct(r.pct_gpu_time), fmt_pct(r.occupancy), fmt_pct(r.reg_occupancy), fmt_pct(r.smem_occupancy),
                fmt_pct(r.warp_occupancy), fmt_pct(r.block_occupancy), _s(r.limiting_resource),
                fmt_int(r.num_regs), _smem(r.static_shared_bytes, r.dyn_shared_bytes),
            ])
        notes = []
        if (df["shapes"] > 1).any() and not by_shape:
            notes.append("Kernels with several launch shapes show the shape with the most GPU time "
                         "(inspect_hotspots(by_shape=True) lists each).")
        if df["instrumented_calls"].sum() > 0:
            notes.append("Durations include deep-engine instrumentation (inflated); compare runs with the same "
                         "engine.")
        self._out.table(f"Top {len(df)} kernels by total GPU time", columns, rows, "\n".join(notes) or None)

    # -------------------------------------------------------------------------------------------- stalls
    def stalls(self) -> pd.DataFrame:
        """PC-sampling stall reasons per kernel: kernel, func, stall, samples, fraction of the kernel's samples."""
        pcs = self.pc_samples
        cols = ["kernel", "func", "stall", "reason", "samples", "fraction", "kernel_samples"]
        if not len(pcs):
            return pd.DataFrame(columns=cols)
        g = pcs.groupby([pcs["func"].astype(object), pcs["stall"].astype(object)], sort=False)["count"].sum()
        df = g.rename("samples").reset_index()
        df.columns = ["func", "stall", "samples"]
        totals = df.groupby("func")["samples"].transform("sum")
        df["kernel_samples"] = totals
        df["fraction"] = df["samples"] / totals.where(totals > 0)
        df["reason"] = df["stall"].map(pretty_stall)
        df["kernel"] = df["func"].map(self._short_name)
        df = df.sort_values(["kernel_samples", "func", "samples"], ascending=[False, True, False])
        return df[cols].reset_index(drop=True)

    def inspect_stalls(self, top_n: int = 10, reasons: int = 8) -> None:
        """Where warps waited, per kernel (PC sampling): the top stall reasons with their share of samples."""
        df = self.stalls()
        if not len(df):
            self._out.text("No PC samples in this session (profiling_engine PcSampling or PcSamplingWithSass).")
            return
        for func in list(dict.fromkeys(df["func"]))[:top_n]:
            part = df[df["func"] == func].head(reasons)
            total = int(part["kernel_samples"].iloc[0])
            rows = [[r.reason, fmt_int(r.samples), fmt_pct(r.fraction), bar(r.fraction)]
                    for r in part.itertuples(index=False)]
            self._out.table(f"{_clip(self._short_name(func), 100)}  ({fmt_int(total)} stall samples)",
                            [("Stall", "left"), ("Samples", "right"), ("%", "right"), ("", "left")], rows)

    # ------------------------------------------------------------------------------- SASS / divergence
    def profile_samples(self) -> pd.DataFrame:
        """SASS metrics per kernel: instructions, divergence (active threads per warp) and memory efficiency
        (ideal / actual global sectors)."""
        sm = self.sass_metrics
        cols = ["kernel", "func", "launches", "instructions", "warp_insts", "thread_insts", "avg_threads_per_warp",
                "warp_efficiency", "sectors_global", "sectors_global_ideal", "memory_efficiency", "stall_samples"]
        if not len(sm):
            return pd.DataFrame(columns=cols)
        key = sm["func"].astype(object)
        g = sm.groupby(key, sort=False)
        df = pd.DataFrame({
            "launches": g["launches"].max(),
            "instructions": g["pc"].nunique(),
            "warp_insts": g["inst_executed"].sum(),
            "thread_insts": g["thread_inst_executed"].sum(),
            "sectors_global": g["sectors_global"].sum(),
            "sectors_global_ideal": g["sectors_global_ideal"].sum(),
        })
        warp = df["warp_insts"].astype(float)
        df["avg_threads_per_warp"] = df["thread_insts"].astype(float) / warp.where(warp > 0)
        df["warp_efficiency"] = df["avg_threads_per_warp"] / 32.0
        sectors = df["sectors_global"].astype(float)
        df["memory_efficiency"] = df["sectors_global_ideal"].astype(float) / sectors.where(sectors > 0)
        pcs = self.pc_samples
        if len(pcs):
            df["stall_samples"] = pcs.groupby(pcs["func"].astype(object))["count"].sum().reindex(df.index).fillna(0)
        else:
            df["stall_samples"] = 0
        df["func"] = df.index
        df["kernel"] = df["func"].map(self._short_name)
        df = df.sort_values("warp_insts", ascending=False).reset_index(drop=True)
        return df[cols]

    def inspect_profile_samples(self, top_n: int = 10) -> None:
        """SASS metrics and divergence per kernel: warp and thread instructions, average active threads per
        warp, global memory sectors against the ideal, and hints."""
        df = self.profile_samples()
        if not len(df):
            self._out.text("No SASS metrics in this session (profiling_engine SassMetrics or PcSamplingWithSass).")
            return
        rows = []
        hints = []
        for r in df.head(top_n).itertuples(index=False):
            rows.append([_clip(r.kernel, 60), fmt_int(r.launches), fmt_int(r.instructions), fmt_int(r.warp_insts),
                         fmt_int(r.thread_insts), _tpw(r.avg_threads_per_warp), fmt_pct(r.warp_efficiency),
                         fmt_int(r.sectors_global), fmt_int(r.sectors_global_ideal), fmt_pct(r.memory_efficiency)])
            if r.memory_efficiency == r.memory_efficiency and r.memory_efficiency < 0.5:
                waste = 1.0 / r.memory_efficiency if r.memory_efficiency > 0 else float("inf")
                hints.append(f"{_clip(r.kernel, 60)}: low memory efficiency ({fmt_pct(r.memory_efficiency, 0)}, "
                             f"{waste:.1f}x the ideal sectors) - consider coalesced access patterns or "
                             "shared-memory tiling.")
            if r.avg_threads_per_warp == r.avg_threads_per_warp and r.avg_threads_per_warp < 24:
                hints.append(f"{_clip(r.kernel, 60)}: {r.avg_threads_per_warp:.1f} of 32 threads active per warp "
                             "instruction - thread divergence; keep branches uniform within a warp.")
        self._out.table("SASS metrics per kernel",
                        [("Kernel", "left", "nowrap"), ("Launches", "right"), ("Instrs", "right"),
                         ("Warp Insts", "right"), ("Thread Insts", "right"), ("Threads/Warp", "right"),
                         ("Warp Eff", "right"), ("Global Sectors", "right"), ("Ideal Sectors", "right"),
                         ("Mem Eff", "right")], rows)
        for h in hints:
            self._out.text(f"  * {h}")

    # -------------------------------------------------------------------------------------------- scopes
    def scope_summary(self) -> pd.DataFrame:
        """Per scope path ("outer/inner"): calls and wall time on the host (open = began, never ended), and the
        kernels and copies launched inside: `kernels`/`gpu_time_ns` include nested scopes, `self_*` only the
        scope itself (innermost)."""
        sc = self.scopes
        cols = ["scope", "depth", "calls", "open", "total_ns", "avg_ns", "min_ns", "max_ns", "kernels",
                "gpu_time_ns", "gpu_avg_ns", "self_kernels", "self_gpu_time_ns", "copies", "copy_bytes"]
        paths = self.scope_paths
        if not len(paths):
            return pd.DataFrame(columns=cols)
        # Exclusive (innermost-scope) sums per path id, then added up along each path's ancestors.
        k = self.kernels
        kg = k.groupby("scope_id", sort=False)["duration_ns"]
        self_n = kg.count().to_dict()
        self_t = kg.sum().to_dict()
        m = self.memcpy
        mg = m[~m["is_memset"]].groupby("scope_id", sort=False)["bytes"] if len(m) else None
        copies = mg.count().to_dict() if mg is not None else {}
        copy_bytes = mg.sum().to_dict() if mg is not None else {}
        parent = dict(zip(paths["p"].astype(int), paths["parent"].astype(int)))
        incl = {p: [0, 0, 0, 0] for p in parent}  # kernels, gpu time, copies, bytes
        for p in parent:
            add = (self_n.get(p, 0), self_t.get(p, 0), copies.get(p, 0), copy_bytes.get(p, 0))
            q, guard = p, 0
            while q in incl and guard < 256:
                acc = incl[q]
                for i in range(4):
                    acc[i] += int(add[i])
                q, guard = parent.get(q, 0), guard + 1
        rows = {}
        for p, path, depth in zip(paths["p"].astype(int), paths["path"], paths["depth"].astype(int)):
            n, t, c, b = incl[p]
            rows[p] = dict(scope=path, depth=depth, kernels=n, gpu_time_ns=t,
                           gpu_avg_ns=t / n if n else np.nan, self_kernels=int(self_n.get(p, 0)),
                           self_gpu_time_ns=int(self_t.get(p, 0)), copies=c, copy_bytes=b)
        df = pd.DataFrame.from_dict(rows, orient="index")
        if len(sc):
            dur = sc["duration_ns"].astype("Float64")
            g = dur.groupby(sc["path_id"].astype(int), sort=False)
            wall = pd.DataFrame({
                "calls": sc.groupby(sc["path_id"].astype(int), sort=False).size(),
                "open": sc["end_ns"].isna().groupby(sc["path_id"].astype(int), sort=False).sum(),
                "total_ns": g.sum().astype(float), "avg_ns": g.mean().astype(float),
                "min_ns": g.min().astype(float), "max_ns": g.max().astype(float),
            })
            df = df.join(wall, how="left")
        for c in ("calls", "open"):
            df[c] = df[c].fillna(0).astype("int64") if c in df else 0
        for c in ("total_ns", "avg_ns", "min_ns", "max_ns"):
            if c not in df:
                df[c] = np.nan
        df = df.sort_values(["total_ns", "gpu_time_ns"], ascending=False, na_position="last")
        return df[cols].reset_index(drop=True)

    def inspect_scopes(self, top_n: Optional[int] = None) -> None:
        """Scope timing (wall) and the GPU time of the kernels launched inside each scope."""
        df = self.scope_summary()
        if not len(df):
            self._out.text("No scopes recorded in this session.")
            return
        if top_n is not None:
            df = df.head(top_n)
        rows = [[_clip(str(r.scope), 60), fmt_int(r.calls) + (f" ({r.open} open)" if r.open else ""),
                 fmt_ns(r.total_ns), fmt_ns(r.avg_ns), fmt_ns(r.max_ns), fmt_int(r.kernels), fmt_ns(r.gpu_time_ns),
                 fmt_ns(r.self_gpu_time_ns), fmt_int(r.copies), fmt_bytes(r.copy_bytes) if r.copies else "-"]
                for r in df.itertuples(index=False)]
        self._out.table("Scopes", [("Scope", "left", "nowrap"), ("Calls", "right"), ("Total", "right"),
                                   ("Avg", "right"), ("Max", "right"), ("Kernels", "right"), ("GPU Time", "right"),
                                   ("Self GPU", "right"), ("Copies", "right"), ("Copied", "right")], rows,
                        "Wall time is host time per scope instance; GPU time includes nested scopes.")

    # --------------------------------------------------------------------------------- range profiler
    def perf_metrics(self) -> pd.DataFrame:
        """Range-profiler counters: one row per range (scope or kernel), one column per metric. A scope profiled
        many times has one range_counters record per instance: `.sum` metrics (bytes, cycles, durations) are
        totals over them, other metrics (percentages, rates) means weighted by each instance's
        gpu__time_duration.sum when every instance has one (plain means otherwise), as in the C++ report."""
        rc = self.range_counters
        if not len(rc):
            return pd.DataFrame()
        # Per-kernel ranges (GPUFL_RANGE_PER_KERNEL) are rows of their own: "scope / kernel".
        names = rc["range"].astype(object)
        if "kernel" in rc:
            kernel = rc["kernel"].astype(object)
            names = names.where(kernel == "", names + " / " + kernel)
        df = pd.DataFrame({"range": names, "metric": rc["metric"].astype(object),
                           "instance": rc["instance"], "value": rc["value"].astype(float)})
        df = df[np.isfinite(df["value"])]
        durations = df[df["metric"] == "gpu__time_duration.sum"].groupby("instance")["value"].first()
        df["weight"] = df["instance"].map(durations.where(durations > 0))
        df["weighted"] = df["value"] * df["weight"]
        g = df.groupby(["range", "metric"], sort=False)
        total, mean = g["value"].sum(), g["value"].mean()
        weighted = g["weighted"].sum() / g["weight"].sum()
        every_weighted = g["weight"].count() == g["value"].count()
        additive = pd.Series(total.index.get_level_values("metric"), index=total.index).str.endswith(".sum")
        value = total.where(additive, weighted.where(every_weighted, mean))
        out = value.unstack("metric")
        return out.reindex(index=pd.unique(df["range"]), columns=pd.unique(df["metric"]))

    def inspect_perf_metrics(self) -> None:
        """Hardware counters per range (profiling_engine RangeProfiler)."""
        df = self.perf_metrics()
        if not len(df):
            self._out.text("No range-profiler counters in this session (profiling_engine RangeProfiler).")
            return
        for rng, row in df.iterrows():
            rows = [[str(metric), _metric(value)] for metric, value in row.items() if value == value]
            self._out.table(f"Range: {rng}", [("Metric", "left"), ("Value", "right")], rows)

    # ------------------------------------------------------------------------------------- transfers
    def memcpy_summary(self) -> pd.DataFrame:
        """Copies per direction: count, bytes, time, throughput (bytes / summed copy time)."""
        m = self.memcpy
        cols = ["kind", "count", "bytes", "time_ns", "throughput_gbps"]
        if not len(m):
            return pd.DataFrame(columns=cols)
        g = m.groupby(m["kind"].astype(object), sort=False)
        df = pd.DataFrame({"count": g.size(), "bytes": g["bytes"].sum(), "time_ns": g["duration_ns"].sum()})
        t = df["time_ns"].astype(float)
        df["throughput_gbps"] = df["bytes"] / t.where(t > 0)
        df["kind"] = df.index
        return df[cols].sort_values("bytes", ascending=False).reset_index(drop=True)

    def inspect_memcpy(self) -> None:
        """Copies and memsets per direction: count, bytes, time and throughput."""
        df = self.memcpy_summary()
        if not len(df):
            self._out.text("No memory transfers recorded in this session.")
            return
        rows = [[r.kind, fmt_int(r.count), fmt_bytes(r.bytes), fmt_ns(r.time_ns), _gbps(r.throughput_gbps)]
                for r in df.itertuples(index=False)]
        self._out.table("Memory transfers", [("Direction", "left"), ("Count", "right"), ("Bytes", "right"),
                                             ("Time", "right"), ("Throughput", "right")], rows)

    # ------------------------------------------------------------------------------------------- misc
    def report(self, top_n: int = 10) -> str:
        """The C++ text report of this session (same as gpufl.report.generate_report)."""
        return generate_report(self.log_dir, os.path.basename(self.prefix), top_n=top_n,
                               session_id=self.info.get("session_id") or self.session_id)

    def plot_timeline(self, **kwargs):
        from . import viz

        return viz.plot_timeline(self, **kwargs)

    def plot_gpu_metrics(self, **kwargs):
        from . import viz

        return viz.plot_gpu_metrics(self, **kwargs)

    def plot_memory(self, **kwargs):
        from . import viz

        return viz.plot_memory(self, **kwargs)

    def _short_name(self, func) -> str:
        names = self.__dict__.get("_short_names")
        if names is None:
            d = self.kernel_defs
            names = dict(zip(d["name"].astype(object), d["short_name"].astype(object))) if len(d) else {}
            self.__dict__["_short_names"] = names
        func = str(func)
        if func not in names:
            from . import _gpufl

            names[func] = _gpufl.short_kernel_name(func)
        return names[func]

    def __repr__(self) -> str:
        return (f"GpuFlightSession({self.prefix!r}, app={self.info.get('app', '')!r}, "
                f"session={self.info.get('sid', '')!r}, kernels={len(self.kernels)})")


def _s(v) -> str:
    return "-" if v is None or v != v else str(v)


def _clip(text: str, n: int) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def _smem(static, dyn) -> str:
    if static != static or dyn != dyn:
        return "-"
    return f"{fmt_bytes(dyn)} + {fmt_bytes(static)}"


def _tpw(v) -> str:
    return "-" if v != v else f"{v:.1f} / 32"


def _pct100(v) -> str:
    return "-" if v != v else f"{v:.1f}%"


def _mib(v, total) -> str:
    if v != v:
        return "-"
    text = f"{v / (1 << 20):.0f} MiB"
    if total is not None and total == total and total > 0:
        text += f" / {total / (1 << 20):.0f} MiB ({100 * v / total:.1f}%)"
    return text


def _gbps(v) -> str:
    return "-" if v != v else f"{v:.2f} GB/s"


def _metric(v) -> str:
    v = float(v)
    if v.is_integer() and abs(v) < 1e18:
        return f"{int(v):,}"
    return f"{v:,.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
