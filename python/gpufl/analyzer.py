"""Interactive analysis of a GPU Flight session in Python (pandas DataFrames + rich tables).

    from gpufl.analyzer import GpuFlightSession
    session = GpuFlightSession(".", log_prefix="smoke_test")
    session.print_summary()
    session.inspect_hotspots(top_n=10)
    session.kernels            # one row per kernel execution (DataFrame)

The logs are read by the C++ reader inside the extension (the same one the CLI and the report use), straight
into column arrays (the tables: kernels, memcpy, scopes, ...), for exploring. The summaries, hot spots, scope
roll-up, stalls, SASS figures, range counters, transfers and hints are not computed here: they are the C++
report's (`report_data`, the JSON of `gpufl report --json`), so the analyzer and the report agree by
construction. Every inspect_*() prints, and the matching method without the prefix returns the DataFrame.
"""
from __future__ import annotations

import os
from typing import IO, Any, Dict, List, Optional, Union

try:
    import numpy as np
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("gpufl.analyzer needs pandas and numpy: pip install \"gpufl[analyzer]\"") from e

from . import _gpufl as _C
from . import _tables
from ._fmt import Output, bar, fmt_bytes, fmt_int, fmt_ns, fmt_pct, short_names
from ._layout import Col
from .report import report_json_of_prefix, report_text_of_prefix, resolve_prefix

__all__ = ["GpuFlightSession", "pretty_stall"]


def pretty_stall(name: str) -> str:
    """CUPTI stall names for people: `smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued` and
    `long_scoreboard_not_issued` -> `Long Scoreboard (idle)`."""
    return _C.stall_label(str(name))  # the C++ report's labels (LG, MIO, ...): one source of truth


class GpuFlightSession:
    """One session of a GPU Flight log, loaded into DataFrames.

    log_dir / log_prefix name the log the way init(log_path=...) wrote it: log_path "./smoke_test" is
    GpuFlightSession(".", log_prefix="smoke_test"). Without log_prefix, a directory holding one log is read
    whatever its prefix; with several, the most recent (and the others are listed). log_dir may also be a
    prefix path ("logs/run") or one of its files ("logs/run.device.log"). session_id picks one of several
    sessions sharing a prefix (a full id or its first characters); the latest is the default.

    Tables print fitted to the terminal or notebook; `width` (columns) or a rich `console` overrides that.
    Kernel names in them are shortened as a set (names that differ stay different); wide=True (or setting
    .wide later) prints them whole, each on a line of its own when it does not fit beside its figures.

    Tables (pandas DataFrames): kernels, kernel_defs, memcpy, syncs, memory, scopes, scope_paths, system (GPU samples),
    host (host samples), sass_metrics, pc_samples, range_counters, notes, stacks, benchmarks, incidents (with
    incident_launches, incident_blocked, incident_last_kernels); `info` is a dict
    of session facts (app, session_id, devices, options, end-of-session counters).
    """

    def __init__(self, log_dir: Union[str, os.PathLike] = ".", log_prefix: Optional[str] = None,
                 session_id: Optional[str] = None, *, use_rich: Optional[bool] = None,
                 file: Optional[IO[str]] = None, max_warnings: int = 100, width: Optional[int] = None,
                 console=None, wide: bool = False):
        self.prefix = resolve_prefix(log_dir, log_prefix)
        self.log_dir = os.path.dirname(self.prefix) or "."
        self.session_id = session_id
        self._data = _tables.load(self.prefix, session_id, max_warnings)
        self._out = Output(use_rich=use_rich, file=file, width=width, console=console, wide=wide)

    # ----------------------------------------------------------------------------------------------- tables
    @property
    def wide(self) -> bool:
        """Whether inspect_*() print kernel names whole instead of shortened to the width."""
        return self._out.wide

    @wide.setter
    def wide(self, value: bool) -> None:
        self._out.wide = bool(value)

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
    incidents = property(lambda self: self._data.incidents,
                         doc="One row per incident (crash, hang, out of memory, CUDA error, dump): docs/incidents.md.")
    incident_launches = property(lambda self: self._data.incident_launches,
                                 doc="The launches in flight at each incident (`incident`: its row in incidents; "
                                     "`suspect`: the ones it points at).")
    incident_blocked = property(lambda self: self._data.incident_blocked,
                                doc="The host threads waiting for the GPU at each incident.")
    incident_last_kernels = property(lambda self: self._data.incident_last_kernels,
                                     doc="The last kernels of each stream that finished before each incident.")

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

    @property
    def report_data(self) -> dict:
        """The C++ report of this session as data (what `gpufl report --json` prints, parsed): the source of
        summary(), hotspots(), stalls(), profile_samples(), scope_summary(), perf_metrics(), memcpy_summary()
        and hints(). Built on first use (the log is read a second time, by the report)."""
        data = self.__dict__.get("_report_data")
        if data is None:
            data = report_json_of_prefix(self.prefix, self.info.get("session_id") or self.session_id)
            self.__dict__["_report_data"] = data
        return data

    def summary(self) -> Dict[str, Any]:
        """The figures print_summary() shows, as a dict (times in ns, memory in bytes, fractions 0..1), taken
        from the C++ report (report_data). With several GPUs, averages are over all their samples and peaks the
        highest of any."""
        r = self.report_data
        ses, k, tr = r["session"], r["kernels"], r["transfers"]
        gpus, host = r["system"]["gpus"], r["system"]["host"]
        dur = int(ses.get("duration_ns") or 0)
        power_avg, power_max = _gpu_stat(gpus, "power_w")
        return {
            "app": ses.get("app", ""),
            "session_id": ses.get("session_id", ""),
            "engine": ses.get("engine", ""),
            "device": ses["devices"][0]["name"] if ses.get("devices") else "",
            "duration_ns": dur,
            "kernel_count": int(k["launches"]),
            "unique_kernels": int(k["unique_functions"]),
            "gpu_time_ns": int(k["total_ns"]),
            "gpu_busy_ns": int(k["busy_ns"]),
            "gpu_busy_fraction": k["busy_pct"] / 100.0 if dur > 0 else float("nan"),
            "instrumented_kernels": int(k["instrumented"]),
            "memcpy_count": int(tr["copies"]),
            "memcpy_bytes": int(tr["bytes"]),
            "memset_count": int(tr["memsets"]["count"]),
            "scope_count": int(sum(p["calls"] + p["unfinished"] for p in r["scopes"]["paths"])),
            "avg_gpu_util_pct": _gpu_stat(gpus, "util_gpu")[0],
            "peak_gpu_util_pct": _gpu_stat(gpus, "util_gpu")[1],
            "peak_vram_bytes": _peak(g.get("vram_peak_bytes") for g in gpus),
            "vram_total_bytes": _peak(g.get("vram_total_bytes") or None for g in gpus),
            "avg_power_mw": power_avg * 1000.0,
            "peak_power_mw": power_max * 1000.0,
            "peak_temp_c": _gpu_stat(gpus, "temp_c")[1],
            "avg_sm_clock_mhz": _gpu_stat(gpus, "clk_sm")[0],
            "avg_host_cpu_pct": _gpu_stat([host], "cpu_pct")[0],
            "peak_host_ram_bytes": _peak([host.get("ram_peak_bytes")]),
            "dropped": dict(r["collection"]["dropped"]),
            "warnings": int(r["collection"]["reader_warnings"]),
        }

    def print_summary(self) -> None:
        """The incidents first (what went wrong, the suspects, what to try: the report's Incidents section), then
        duration, kernel count, GPU busy time and %, average utilization, peak VRAM, and what was off."""
        self._print_incidents()
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
        for note in self.report_data["collection"]["notes"]:
            if note["status"] != "on":
                pairs.append((note["feature"], f"{note['status']}: {note['reason']}"))
        if s["warnings"]:
            pairs.append(("Reader Warnings", f"{s['warnings']} (see .warnings)"))
        self._out.kv("GPU Flight Session Summary", pairs)

    def _print_incidents(self) -> None:
        """One block per incident, from the C++ report's "incidents" (report_data)."""
        r = self.report_data
        if not r["session"].get("ended", True):
            n = len(r.get("incidents", []))
            self._out.text(f"The program ended without a session_end: it crashed or was killed (or it still runs); "
                           f"{n} incident{'' if n == 1 else 's'} recorded.")
        for number, i in enumerate(r.get("incidents", []), 1):
            pairs = [("What", i["reason"])]
            error = " ".join(x for x in (i["error_name"], f"({i['error_code']})" if i["error_code"] is not None
                                         else "") if x)
            if error or i["api"]:
                pairs.append(("Error", error + (" in " if error and i["api"] else "") + i["api"]))
            for launch in i["in_flight"]:
                if launch["suspect"]:
                    stream = launch["stream"] or hex(launch["stream_handle"])
                    where = f"stream {stream}"
                    if launch["scope"]:
                        where += f", scope {launch['scope_name']}"
                    pairs.append(("Suspect", f"{launch['name']} ({where})"))
            if i["attribution"]:
                pairs.append(("How Sure", i["attribution"]))
            for b in i["blocked"]:
                waited = f" for {fmt_ns(b['waited_ns'])}" if b["waited_ns"] is not None else ""
                pairs.append(("Waiting Thread", f"{b['tid']} in {b['api']}{waited}"))
            if i["requested_bytes"] is not None:
                pairs.append(("Requested", fmt_bytes(i["requested_bytes"])))
            for h in i["memory"]["holders"][:3]:
                pairs.append(("Held", f"{fmt_bytes(h['bytes'])} by {h['scope_name']}"))
            for advice in i["advice"]:
                pairs.append(("What To Try", advice))
            self._out.kv(f"Incident #{number}: {i['kind']} at {i['at_ns'] / 1e9:.3f} s", pairs)

    # ------------------------------------------------------------------------------------------- hotspots
    def hotspots(self, top_n: Optional[int] = 10, by_shape: bool = False) -> pd.DataFrame:
        """Kernels by total GPU time, with the launch shape and occupancy of their most expensive shape
        (by_shape=True: one row per launch shape, i.e. per kernel_def, as the text report lists them)."""
        cols = ["kernel", "calls", "total_ns", "avg_ns", "min_ns", "max_ns", "pct_gpu_time", "grid", "block",
                "occupancy", "reg_occupancy", "smem_occupancy", "warp_occupancy", "block_occupancy",
                "limiting_resource", "num_regs", "static_shared_bytes", "dyn_shared_bytes", "shapes",
                "instrumented_calls", "mangled"]
        r = self.report_data
        rows = []
        for g in r["kernel_groups"]:  # the report's groups: one per (function, grid, block), by total time
            d = g["durations"]
            if not d:
                continue
            occ = g["occupancy"] or {}
            rows.append({
                "kernel": self._short_name(g["mangled"]), "calls": d["count"], "total_ns": d["total_ns"],
                "min_ns": d["min_ns"], "max_ns": d["max_ns"], "grid": g["grid"], "block": g["block"],
                "occupancy": occ.get("occupancy", np.nan), "reg_occupancy": occ.get("reg_occupancy", np.nan),
                "smem_occupancy": occ.get("smem_occupancy", np.nan),
                "warp_occupancy": occ.get("warp_occupancy", np.nan),
                "block_occupancy": occ.get("block_occupancy", np.nan),
                "limiting_resource": occ.get("limiting_resource"), "num_regs": g["num_regs"],
                "static_shared_bytes": g["static_shared_bytes"], "dyn_shared_bytes": g["dyn_shared_bytes"],
                "shapes": 1, "instrumented_calls": g["instrumented"], "mangled": g["mangled"]})
        if not rows:
            return pd.DataFrame(columns=cols)
        agg = pd.DataFrame(rows)
        if not by_shape:
            # The report's groups of one function folded together; the other columns are those of its shape with
            # the most GPU time (the first: the report sorts groups by total time).
            by = agg.groupby("mangled", sort=False)
            folded = by.first()
            folded["calls"] = by["calls"].sum()
            folded["total_ns"] = by["total_ns"].sum()
            folded["min_ns"] = by["min_ns"].min()
            folded["max_ns"] = by["max_ns"].max()
            folded["instrumented_calls"] = by["instrumented_calls"].sum()
            folded["shapes"] = by.size()
            agg = folded.reset_index()
        agg["avg_ns"] = agg["total_ns"] / agg["calls"]
        total = float(r["kernels"]["total_ns"])
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
        # Occupancy's per-resource limits go first when the width is short; the time columns last.
        columns = [Col("#", keep=10), Col("Kernel", "left", name=True), Col("Calls", keep=8),
                   Col("Total", keep=10), Col("Avg", keep=7), Col("GPU %", keep=9), Col("Occupancy", keep=6),
                   Col("Reg", keep=2), Col("SMem", keep=2), Col("Warp", keep=1), Col("Block", keep=1),
                   Col("Limiting", "left", keep=5), Col("Regs", keep=3), Col("SMem dyn+static", keep=3)]
        if by_shape:
            columns.insert(2, Col("Grid x Block", "left", keep=4))
        rows = []
        for i, r in enumerate(df.itertuples(index=False), 1):
            row = [str(i), str(r.mangled), fmt_int(r.calls), fmt_ns(r.total_ns), fmt_ns(r.avg_ns),
                   fmt_pct(r.pct_gpu_time), fmt_pct(r.occupancy), fmt_pct(r.reg_occupancy),
                   fmt_pct(r.smem_occupancy), fmt_pct(r.warp_occupancy), fmt_pct(r.block_occupancy),
                   _s(r.limiting_resource), fmt_int(r.num_regs), _smem(r.static_shared_bytes, r.dyn_shared_bytes)]
            if by_shape:
                row.insert(2, f"{r.grid}x{r.block}")
            rows.append(row)
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
        cols = ["kernel", "func", "stall", "reason", "samples", "fraction", "kernel_samples"]
        rows = []
        for f in self.report_data["profile"]["functions"]:
            total = f["stall_samples"]
            for st in f["stalls"]:
                rows.append((self._short_name(f["func"]), f["func"], st["reason"], st["label"], st["samples"],
                             st["samples"] / total if total > 0 else np.nan, total))
        if not rows:
            return pd.DataFrame(columns=cols)
        df = pd.DataFrame(rows, columns=cols)
        df = df.sort_values(["kernel_samples", "func", "samples"], ascending=[False, True, False], kind="stable")
        return df.reset_index(drop=True)

    def inspect_stalls(self, top_n: int = 10, reasons: int = 8) -> None:
        """Where warps waited, per kernel (PC sampling): the top stall reasons with their share of samples."""
        df = self.stalls()
        if not len(df):
            self._out.text("No PC samples in this session (profiling_engine PcSampling or PcSamplingWithSass).")
            return
        funcs = list(dict.fromkeys(df["func"]))[:top_n]
        totals = [int(df.loc[df["func"] == f, "kernel_samples"].iloc[0]) for f in funcs]
        # Titles: each kernel's name shortened with the others, so that two instantiations stay apart.
        room = max(self._out.width - max(len(f"  ({fmt_int(t)} stall samples)") for t in totals), 24)
        for func, total, name in zip(funcs, totals, short_names(funcs, room)):
            part = df[df["func"] == func].head(reasons)
            rows = [[r.reason, fmt_int(r.samples), fmt_pct(r.fraction), bar(r.fraction)]
                    for r in part.itertuples(index=False)]
            self._out.table(f"{name}  ({fmt_int(total)} stall samples)",
                            [Col("Stall", "left", keep=10), Col("Samples", keep=10), Col("%", keep=10),
                             Col("", "left", keep=1)], rows)

    # ------------------------------------------------------------------------------- SASS / divergence
    def profile_samples(self) -> pd.DataFrame:
        """SASS metrics per kernel: instructions, divergence (active threads per warp) and memory efficiency
        (ideal / actual global sectors)."""
        cols = ["kernel", "func", "launches", "instructions", "warp_insts", "thread_insts", "avg_threads_per_warp",
                "warp_efficiency", "sectors_global", "sectors_global_ideal", "memory_efficiency", "stall_samples"]
        funcs = [f for f in self.report_data["profile"]["functions"] if f["has_sass"]]
        if not funcs:
            return pd.DataFrame(columns=cols)
        sm = self.sass_metrics  # distinct instructions (PCs) per function: a count of the table, not a figure
        pcs = sm.groupby(sm["func"].astype(object), sort=False)["pc"].nunique().to_dict() if len(sm) else {}
        warp_size = self.report_data["profile"]["warp_size"] or 32
        rows = []
        for f in funcs:
            # The report's per-function counters; the ratios are its definitions (threads_per_warp,
            # warp_efficiency_pct with the device's warp size, memory_efficiency_pct) at full precision, where
            # the JSON rounds them for display.
            s = f["sass"]
            warp, thread = s["inst_executed"], s["thread_inst_executed"]
            sectors, ideal = s["sectors_global"], s["sectors_global_ideal"]
            rows.append({
                "kernel": self._short_name(f["func"]), "func": f["func"], "launches": f["launches"],
                "instructions": int(pcs.get(f["func"], 0)), "warp_insts": warp, "thread_insts": thread,
                "avg_threads_per_warp": thread / warp if warp else np.nan,
                "warp_efficiency": thread / (warp * warp_size) if warp else np.nan,
                "sectors_global": sectors, "sectors_global_ideal": ideal,
                "memory_efficiency": ideal / sectors if sectors else 1.0,  # as the report: no global access
                "stall_samples": f["stall_samples"]})
        df = pd.DataFrame(rows, columns=cols)
        return df.sort_values("warp_insts", ascending=False, kind="stable").reset_index(drop=True)

    def inspect_profile_samples(self, top_n: int = 10) -> None:
        """SASS metrics and divergence per kernel: warp and thread instructions, average active threads per
        warp, global memory sectors against the ideal, and the report's hints for each kernel."""
        df = self.profile_samples()
        if not len(df):
            self._out.text("No SASS metrics in this session (profiling_engine SassMetrics or PcSamplingWithSass).")
            return
        warp_size = self.report_data["profile"]["warp_size"] or 32
        hints_of = {f["func"]: f["hints"] for f in self.report_data["profile"]["functions"]}
        rows = []
        hints = []
        for r in df.head(top_n).itertuples(index=False):
            rows.append([str(r.func), fmt_int(r.launches), fmt_int(r.instructions), fmt_int(r.warp_insts),
                         fmt_int(r.thread_insts), _tpw(r.avg_threads_per_warp, warp_size),
                         fmt_pct(r.warp_efficiency), fmt_int(r.sectors_global), fmt_int(r.sectors_global_ideal),
                         fmt_pct(r.memory_efficiency)])
            hints += [f"{r.kernel}: {h['text']}" for h in hints_of.get(r.func, [])]
        self._out.table("SASS metrics per kernel",
                        [Col("Kernel", "left", name=True), Col("Launches", keep=4), Col("Instrs", keep=1),
                         Col("Warp Insts", keep=3), Col("Thread Insts", keep=2), Col("Threads/Warp", keep=7),
                         Col("Warp Eff", keep=9), Col("Global Sectors", keep=6), Col("Ideal Sectors", keep=5),
                         Col("Mem Eff", keep=9)], rows)
        for h in hints:
            self._out.text(f"  * {h}")

    # -------------------------------------------------------------------------------------------- scopes
    def scope_summary(self) -> pd.DataFrame:
        """Per scope path ("outer/inner"), in the report's tree order: calls (ended instances) and their wall
        time on the host, open (began, never ended), and the kernels and copies launched inside:
        `kernels`/`gpu_time_ns`/`copies`/`copy_bytes` include nested scopes, `self_*` only the scope itself."""
        cols = ["scope", "depth", "calls", "open", "total_ns", "avg_ns", "max_ns", "kernels", "gpu_time_ns",
                "gpu_avg_ns", "self_kernels", "self_gpu_time_ns", "copies", "copy_bytes"]
        paths = self.report_data["scopes"]["paths"]
        if not paths:
            return pd.DataFrame(columns=cols)
        by_id = {p["p"]: p for p in paths}

        def full_name(p) -> str:  # "outer/inner", as the report names a path
            name, depth = p["name"], p["depth"]
            while depth > 0 and p["parent"] in by_id:
                p = by_id[p["parent"]]
                name, depth = p["name"] + "/" + name, depth - 1
            return name

        rows = [{
            "scope": full_name(p), "depth": p["depth"], "calls": p["calls"], "open": p["unfinished"],
            "total_ns": p["total_ns"], "avg_ns": p["total_ns"] / p["calls"] if p["calls"] else np.nan,
            "max_ns": p["max_ns"], "kernels": p["kernels_incl"], "gpu_time_ns": p["gpu_incl_ns"],
            "gpu_avg_ns": p["gpu_incl_ns"] / p["kernels_incl"] if p["kernels_incl"] else np.nan,
            "self_kernels": p["kernels_self"], "self_gpu_time_ns": p["gpu_self_ns"],
            "copies": p["copies_incl"], "copy_bytes": p["copy_bytes_incl"]} for p in paths]
        return pd.DataFrame(rows, columns=cols)

    def inspect_scopes(self, top_n: Optional[int] = None) -> None:
        """Scope timing (wall) and the GPU time of the kernels launched inside each scope."""
        df = self.scope_summary()
        if not len(df):
            self._out.text("No scopes recorded in this session.")
            return
        if top_n is not None:
            df = df.head(top_n)
        caption = "Wall time is host time per scope instance; GPU time includes nested scopes."
        over = df[df["gpu_time_ns"] > df["total_ns"]]
        if len(over):  # e.g. a scope that only launches: its kernels run after it has ended
            caption += (f" GPU time exceeds wall time in {len(over)} scope(s) ({over['scope'].iloc[0]}, ...): "
                        "launches are asynchronous, so kernels run after the scope that launched them ends.")
        rows = [[str(r.scope), fmt_int(r.calls) + (f" ({r.open} open)" if r.open else ""),
                 fmt_ns(r.total_ns), fmt_ns(r.avg_ns), fmt_ns(r.max_ns), fmt_int(r.kernels), fmt_ns(r.gpu_time_ns),
                 fmt_ns(r.self_gpu_time_ns), fmt_int(r.copies), fmt_bytes(r.copy_bytes) if r.copies else "-"]
                for r in df.itertuples(index=False)]
        self._out.table("Scopes", [Col("Scope", "left", name=True, kernel=False), Col("Calls", keep=9),
                                   Col("Total", keep=10), Col("Avg", keep=6), Col("Max", keep=4),
                                   Col("Kernels", keep=7),
                                   Col("GPU Time", keep=8), Col("Self GPU", keep=3), Col("Copies", keep=2),
                                   Col("Copied", keep=2)], rows, caption)

    # --------------------------------------------------------------------------------- range profiler
    def perf_metrics(self) -> pd.DataFrame:
        """Range-profiler counters, as the C++ report folds them: one row per range (scope, or "scope / kernel"
        for per-kernel ranges), one column per metric. A scope profiled many times has one range_counters
        record per instance: `.sum` metrics (bytes, cycles, durations) are totals over them, other metrics
        (percentages, rates) means weighted by each instance's gpu__time_duration.sum when every instance has
        one (plain means otherwise)."""
        ranges = self.report_data["profile"]["ranges"]
        if not ranges:
            return pd.DataFrame()
        index = [r["range"] + (" / " + r["kernel"] if r.get("kernel") else "") for r in ranges]
        columns = list(dict.fromkeys(m for r in ranges for m in r["metrics"]))
        return pd.DataFrame([r["metrics"] for r in ranges], index=index, columns=columns, dtype=float)

    def inspect_perf_metrics(self) -> None:
        """Hardware counters per range (profiling_engine RangeProfiler)."""
        df = self.perf_metrics()
        if not len(df):
            self._out.text("No range-profiler counters in this session (profiling_engine RangeProfiler).")
            return
        for rng, row in df.iterrows():
            rows = [[str(metric), _metric_with_unit(str(metric), value)] for metric, value in row.items()
                    if value == value]
            columns = [Col("Metric", "left", name=True, kernel=False), Col("Value", keep=10)]
            self._out.table(f"Range: {rng}", columns, rows)

    # ------------------------------------------------------------------------------------- transfers
    def memcpy_summary(self) -> pd.DataFrame:
        """Copies per direction, and memsets (kind "memset"), from the C++ report: count, bytes, time,
        throughput (bytes / summed copy time, GB/s)."""
        cols = ["kind", "count", "bytes", "time_ns", "throughput_gbps"]
        tr = self.report_data["transfers"]
        stats = list(tr["directions"])
        if tr["memsets"]["count"]:
            stats.append(dict(tr["memsets"], kind="memset"))
        if not stats:
            return pd.DataFrame(columns=cols)
        df = pd.DataFrame([(t["kind"], t["count"], t["bytes"], t["total_ns"],
                            t["throughput_bps"] / 1e9 if t["total_ns"] > 0 else np.nan) for t in stats],
                          columns=cols)
        return df.sort_values("bytes", ascending=False, kind="stable").reset_index(drop=True)

    def inspect_memcpy(self) -> None:
        """Copies and memsets per direction: count, bytes, time and throughput."""
        df = self.memcpy_summary()
        if not len(df):
            self._out.text("No memory transfers recorded in this session.")
            return
        rows = [[r.kind, fmt_int(r.count), fmt_bytes(r.bytes), fmt_ns(r.time_ns), _gbps(r.throughput_gbps)]
                for r in df.itertuples(index=False)]
        self._out.table("Memory transfers", [Col("Direction", "left", keep=10), Col("Count", keep=8),
                                             Col("Bytes", keep=9), Col("Time", keep=7), Col("Throughput", keep=9)],
                        rows)

    # ------------------------------------------------------------------------------------------- misc
    def report(self, top_n: int = 10) -> str:
        """The C++ text report of this session (same as gpufl.report.generate_report)."""
        return report_text_of_prefix(self.prefix, self.info.get("session_id") or self.session_id, top_n=top_n)

    def hints(self) -> pd.DataFrame:
        """The C++ report's hints for the session (kind, subject, text): what to look at first."""
        return pd.DataFrame(self.report_data["hints"], columns=["kind", "subject", "text"])

    def inspect_hints(self) -> None:
        """The report's hints, one per line."""
        hints = self.report_data["hints"]
        if not hints:
            self._out.text("No hints for this session.")
            return
        for h in hints:
            self._out.text(f"  * {h['text']}")

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


def _smem(static, dyn) -> str:
    if static != static or dyn != dyn:
        return "-"
    return f"{fmt_bytes(dyn)} + {fmt_bytes(static)}"


def _tpw(v, warp_size: int) -> str:
    return "-" if v != v else f"{v:.1f} / {warp_size}"


def _gpu_stat(stats: List[dict], key: str):
    """(mean, max) of the report's per-GPU statistic `key` over every sample of every GPU; NaN when none."""
    parts = [g[key] for g in stats if g.get(key)]
    n = sum(p["samples"] for p in parts)
    if not n:
        return float("nan"), float("nan")
    return sum(p["avg"] * p["samples"] for p in parts) / n, max(p["max"] for p in parts)


def _peak(values) -> float:
    values = [v for v in values if v is not None]
    return float(max(values)) if values else float("nan")


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


def _metric_with_unit(name: str, v) -> str:
    """A range-profiler counter with its unit, read from the metric's name the way Nsight Compute names them:
    `*bytes*` bytes, `*time_duration*` / `*cycles*` ns / cycles, `*.pct*` / `*pct_of_peak*` percent."""
    low = name.lower()
    if "bytes" in low:
        return f"{_metric(v)} B ({fmt_bytes(v)})" if float(v) >= 1024 else f"{_metric(v)} B"
    if "time_duration" in low:
        return fmt_ns(v)
    if "pct" in low:
        return f"{float(v):,.2f}%"
    if "cycles" in low and "pct" not in low:
        return f"{_metric(v)} cycles"
    return _metric(v)


def _metric(v) -> str:
    v = float(v)
    if v.is_integer() and abs(v) < 1e18:
        return f"{int(v):,}"
    return f"{v:,.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
