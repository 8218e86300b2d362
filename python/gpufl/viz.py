"""Plots of a GPU Flight session (matplotlib): kernel timeline with scopes, GPU metrics, memory and transfers.

    from gpufl.analyzer import GpuFlightSession
    from gpufl import viz
    s = GpuFlightSession(".", log_prefix="run")
    viz.plot_timeline(s, save="timeline.png")     # PNG; without save= the figure is shown
    viz.plot_gpu_metrics(s)
    viz.plot_memory(s, save="memory.png")

Every function returns the matplotlib Figure. Pass save=path to write a file (format from the extension);
show=True/False overrides whether plt.show() is called (default: only when nothing is saved). For headless use
set MPLBACKEND=Agg. Times are seconds since the session started.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence, Tuple, Union

try:
    import numpy as np
    import matplotlib
    import matplotlib.pyplot as plt
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError("gpufl.viz needs matplotlib: pip install \"gpufl[viz]\"") from e

__all__ = ["plot_timeline", "plot_gpu_metrics", "plot_memory", "plot_all", "merge_intervals"]

_PathLike = Union[str, os.PathLike]
_COPY_COLORS = {"HtoD": "tab:green", "DtoH": "tab:red", "DtoD": "tab:purple", "HtoH": "tab:brown",
                "PtoP": "tab:pink", "memset": "tab:gray", "unknown": "tab:olive"}


def _session(s):
    """The session's data: a GpuFlightSession (or anything with its tables: kernels, memcpy, scopes, system, host,
    info, start_ns, duration_ns), or a log prefix path, loaded here. viz depends on the analyzer's data; the
    analyzer does not import viz."""
    if isinstance(s, (str, os.PathLike)):
        from .analyzer import GpuFlightSession

        path = os.fspath(s)
        return GpuFlightSession(os.path.dirname(path) or ".", log_prefix=os.path.basename(path))
    if all(hasattr(s, a) for a in ("kernels", "memcpy", "scopes", "system", "host", "info", "duration_ns")):
        return s
    raise TypeError("expected a GpuFlightSession or a log prefix path")


def _finish(fig, save: Optional[_PathLike], show: Optional[bool]):
    if save is not None:
        fig.savefig(os.fspath(save), dpi=fig.dpi, bbox_inches="tight")
    if show is None:
        show = save is None and matplotlib.get_backend().lower() != "agg"
    if show:
        plt.show()
    elif save is not None:
        plt.close(fig)  # the Figure object stays usable; pyplot just forgets it
    return fig


def merge_intervals(start: np.ndarray, end: np.ndarray, min_gap: float) -> Tuple[np.ndarray, np.ndarray]:
    """Sorted union of intervals, also joining those separated by less than `min_gap` (to keep a plot of a
    million kernels to a few thousand rectangles without changing what the eye sees)."""
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    if len(start) == 0:
        return start, end
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    new = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1] + min_gap
    first = np.flatnonzero(new)
    last = np.append(first[1:] - 1, len(s) - 1)
    return s[first], reach[last]


def _bars(ax, y: float, height: float, start: np.ndarray, end: np.ndarray, color, min_gap: float, **kw):
    s, e = merge_intervals(start, end, min_gap)
    if len(s):
        ax.broken_barh(list(zip(s, np.maximum(e - s, min_gap * 0.5))), (y, height), facecolors=color, **kw)


# Kernel colors avoid the copy colors (green, red, gray) so a copy never reads as a kernel.
_KERNEL_COLORS = ["tab:blue", "tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan",
                  "navy", "goldenrod", "teal"]


def plot_timeline(session, save: Optional[_PathLike] = None, show: Optional[bool] = None,
                  top_kernels: int = 7, max_scope_depth: int = 6, figsize: Optional[Tuple[float, float]] = None,
                  resolution: int = 4000, time_range: Optional[Tuple[float, float]] = None,
                  title: Optional[str] = None):
    """Kernels per stream (colored by kernel, the `top_kernels` heaviest named in the legend), copies (thin bars
    above the kernels), and user scopes per thread and nesting depth, on one time axis.

    time_range=(t0, t1) zooms to that window (seconds since the session start). Intervals closer than
    window/resolution are drawn as one bar, so a million kernels stay a few thousand rectangles.
    """
    s = _session(session)
    k = s.kernels
    m = s.memcpy
    sc = s.scopes
    t_lo, t_hi = (0.0, max(s.duration_ns / 1e9, 1e-9)) if time_range is None else map(float, time_range)
    window = max(t_hi - t_lo, 1e-12)
    min_gap = window / max(resolution, 1)

    def in_window(start, end):
        return (end >= t_lo) & (start <= t_hi)

    k_start = k["start_s"].to_numpy() if len(k) else np.array([])
    k_end = k_start + (k["duration_ns"].to_numpy() / 1e9 if len(k) else 0)
    k_keep = in_window(k_start, k_end)
    k_start, k_end = k_start[k_keep], k_end[k_keep]
    k_stream = k["stream"].to_numpy()[k_keep] if len(k) else np.array([])
    name_obj = k["name"].astype(object).to_numpy()[k_keep] if len(k) else np.array([], dtype=object)
    top: List[str] = []
    if len(name_obj):
        totals = (k.loc[k_keep].groupby(k["name"].astype(object)[k_keep], sort=False)["duration_ns"].sum()
                  .sort_values(ascending=False))
        top = list(totals.index[:min(top_kernels, len(_KERNEL_COLORS))])

    m_start = m["start_s"].to_numpy() if len(m) else np.array([])
    m_end = m_start + (m["duration_ns"].to_numpy() / 1e9 if len(m) else 0)
    m_keep = in_window(m_start, m_end)
    m_start, m_end = m_start[m_keep], m_end[m_keep]
    m_stream = m["stream"].to_numpy()[m_keep] if len(m) else np.array([])
    m_kind = m["kind"].astype(object).to_numpy()[m_keep] if len(m) else np.array([], dtype=object)

    if len(sc):
        sc_start = sc["start_s"].to_numpy()
        open_end = (s.start_ns + s.duration_ns - sc["start_ns"]).to_numpy(dtype=np.float64)
        sc_end = sc_start + sc["duration_ns"].to_numpy(dtype=np.float64, na_value=np.nan) / 1e9
        sc_end = np.where(np.isnan(sc_end), sc_start + open_end / 1e9, sc_end)  # never ended: to session end
        sc_keep = in_window(sc_start, sc_end)
        scopes = sc.loc[sc_keep].assign(_s=sc_start[sc_keep], _e=sc_end[sc_keep])
    else:
        scopes = sc

    rows: List[Tuple[str, str, object]] = []  # (label, kind, key)
    for tid in sorted(set(int(t) for t in scopes["tid"])) if len(scopes) else []:
        depths = sorted(set(int(d) for d in scopes.loc[scopes["tid"] == tid, "depth"]))
        for d in depths[:max_scope_depth]:
            rows.append((f"thread {tid}" + (f" d{d}" if d else ""), "scope", (tid, d)))
    for st in sorted(set(int(x) for x in k_stream) | set(int(x) for x in m_stream)):
        rows.append((f"stream {st}", "stream", st))

    fig, ax = plt.subplots(figsize=figsize or (14, max(3.0, 0.45 * len(rows) + 1.8)))
    legend: Dict[str, object] = {}
    for i, (label, kind, key) in enumerate(rows):
        y = len(rows) - 1 - i
        if kind == "scope":
            tid, depth = key
            part = scopes[(scopes["tid"] == tid) & (scopes["depth"] == depth)]
            st, en = part["_s"].to_numpy(), part["_e"].to_numpy()
            _bars(ax, y + 0.1, 0.8, st, en, "lightsteelblue", min_gap, edgecolor="steelblue", linewidth=0.3)
            if len(part) <= 30:
                for a, b, name in zip(st, en, part["name"].astype(object)):
                    if min(b, t_hi) - max(a, t_lo) > window / 12:
                        ax.text((max(a, t_lo) + min(b, t_hi)) / 2, y + 0.5, str(name), ha="center", va="center",
                                fontsize=7, clip_on=True)
            legend.setdefault("scope", plt.Rectangle((0, 0), 1, 1, fc="lightsteelblue", ec="steelblue"))
            continue
        sel = k_stream == key
        rest = sel & ~np.isin(name_obj, top) if len(top) else sel
        if rest.any():  # drawn first: the named kernels go on top
            _bars(ax, y + 0.1, 0.6, k_start[rest], k_end[rest], "darkgray", min_gap)
            legend.setdefault("other kernels", plt.Rectangle((0, 0), 1, 1, fc="darkgray"))
        for j in reversed(range(len(top))):
            part = sel & (name_obj == top[j])
            if part.any():
                color = _KERNEL_COLORS[j]
                _bars(ax, y + 0.1, 0.6, k_start[part], k_end[part], color, min_gap)
        msel = m_stream == key
        for kind_name, color in _COPY_COLORS.items():
            part = msel & (m_kind == kind_name)
            if part.any():
                _bars(ax, y + 0.74, 0.16, m_start[part], m_end[part], color, min_gap)
                legend.setdefault(f"copy {kind_name}" if kind_name != "memset" else "memset",
                                  plt.Rectangle((0, 0), 1, 1, fc=color))
    for j, name in enumerate(top):
        legend[_short(name)] = plt.Rectangle((0, 0), 1, 1, fc=_KERNEL_COLORS[j])

    ax.set_yticks([len(rows) - 1 - i + 0.5 for i in range(len(rows))])
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.set_ylim(0, max(len(rows), 1))
    ax.set_xlim(t_lo, t_hi)
    ax.set_xlabel("time since session start (s)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title or f"{s.info.get('app', '')}: kernels, copies and scopes")
    if legend:
        ax.legend(legend.values(), legend.keys(), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
                  frameon=False)
    if not rows:
        ax.text(0.5, 0.5, "no kernels, copies or scopes", transform=ax.transAxes, ha="center", va="center")
    fig.tight_layout()
    return _finish(fig, save, show)


def _lines(ax, df, col: str, scale: float, label: str, multi_gpu: bool) -> bool:
    drawn = False
    if col not in df or not len(df):
        return drawn
    for gpu, part in df.groupby("gpu", sort=True):
        v = part[col].to_numpy(dtype=np.float64) * scale
        if np.isnan(v).all():
            continue
        ax.plot(part["t_s"].to_numpy(), v, label=f"{label} (GPU {gpu})" if multi_gpu else label, linewidth=1.2)
        drawn = True
    return drawn


def plot_gpu_metrics(session, save: Optional[_PathLike] = None, show: Optional[bool] = None,
                     figsize: Tuple[float, float] = (12, 8), title: Optional[str] = None):
    """GPU utilization (SM and memory), clocks, power and temperature over time (NVML samples)."""
    s = _session(session)
    g = s.system
    multi = len(g) > 0 and g["gpu"].nunique() > 1
    fig, axes = plt.subplots(3, 1, figsize=figsize, sharex=True)
    ax_u, ax_c, ax_p = axes
    _lines(ax_u, g, "util_gpu", 1.0, "GPU util %", multi)
    _lines(ax_u, g, "util_mem", 1.0, "memory util %", multi)
    ax_u.set_ylabel("%")
    ax_u.set_ylim(-2, 102)
    _lines(ax_c, g, "clk_sm", 1.0, "SM clock", multi)
    _lines(ax_c, g, "clk_mem", 1.0, "memory clock", multi)
    ax_c.set_ylabel("MHz")
    _lines(ax_p, g, "power_mw", 1e-3, "power W", multi)
    ax_t = ax_p.twinx()
    if _lines(ax_t, g, "temp_c", 1.0, "temperature C", multi):
        ax_t.set_ylabel("C")
        for line, color in zip(ax_t.get_lines(), ["tab:red", "darkred", "salmon", "maroon"] * 4):
            line.set_linestyle("--")
            line.set_color(color)
    ax_p.set_ylabel("W")
    ax_p.set_xlabel("time since session start (s)")
    for ax in (ax_u, ax_c, ax_p):
        ax.grid(alpha=0.3)
        if ax.get_lines():
            ax.legend(loc="upper left", fontsize=7)
    if ax_t.get_lines():
        ax_t.legend(loc="upper right", fontsize=7)
    if not len(g):
        ax_u.text(0.5, 0.5, "no GPU samples (NVML off or sampling disabled)", transform=ax_u.transAxes,
                  ha="center", va="center")
    ax_p.set_xlim(0, max(s.duration_ns / 1e9, 1e-9))
    fig.suptitle(title or f"{s.info.get('app', '')}: GPU metrics")
    fig.tight_layout()
    return _finish(fig, save, show)


def plot_memory(session, save: Optional[_PathLike] = None, show: Optional[bool] = None,
                figsize: Tuple[float, float] = (12, 6), title: Optional[str] = None):
    """Device memory in use (NVML) and host RSS over time, and every copy: bytes per transfer by direction plus
    the cumulative bytes moved."""
    s = _session(session)
    g = s.system
    h = s.host
    m = s.memcpy
    fig, (ax_v, ax_x) = plt.subplots(2, 1, figsize=figsize, sharex=True)
    multi = len(g) > 0 and g["gpu"].nunique() > 1
    _lines(ax_v, g, "mem_used_bytes", 1.0 / (1 << 20), "VRAM used", multi)
    if len(h) and "proc_rss_bytes" in h and not h["proc_rss_bytes"].isna().all():
        ax_v.plot(h["t_s"], h["proc_rss_bytes"] / (1 << 20), label="process RSS (host)", linestyle=":", linewidth=1)
    ax_v.set_ylabel("MiB")
    ax_v.grid(alpha=0.3)
    if ax_v.get_lines():
        ax_v.legend(loc="upper left", fontsize=7)
    else:
        ax_v.text(0.5, 0.5, "no memory samples", transform=ax_v.transAxes, ha="center", va="center")

    ax_cum = ax_x.twinx()
    if len(m):
        kinds = m["kind"].astype(object).to_numpy()
        for kind_name in sorted(set(kinds)):
            part = m[kinds == kind_name].sort_values("start_s")
            color = _COPY_COLORS.get(kind_name, "black")
            ax_x.vlines(part["start_s"], 0, part["bytes"] / (1 << 20), colors=color, linewidth=1.5,
                        label=f"{kind_name} ({len(part)})")
            ax_cum.step(part["start_s"], part["bytes"].cumsum() / (1 << 20), where="post", color=color,
                        alpha=0.5, linestyle="--")
        ax_x.legend(loc="upper left", fontsize=7)
    else:
        ax_x.text(0.5, 0.5, "no memory transfers", transform=ax_x.transAxes, ha="center", va="center")
    ax_x.set_ylabel("MiB per transfer")
    ax_cum.set_ylabel("cumulative MiB (dashed)")
    ax_x.set_xlabel("time since session start (s)")
    ax_x.grid(alpha=0.3)
    ax_x.set_ylim(bottom=0)
    ax_x.set_xlim(0, max(s.duration_ns / 1e9, 1e-9))
    fig.suptitle(title or f"{s.info.get('app', '')}: memory and transfers")
    fig.tight_layout()
    return _finish(fig, save, show)


def plot_all(session, save_prefix: Optional[_PathLike] = None, show: Optional[bool] = None) -> Sequence:
    """The three plots; with save_prefix "out/run" writes out/run.timeline.png, .gpu.png and .memory.png."""
    s = _session(session)
    out = []
    for suffix, fn in (("timeline", plot_timeline), ("gpu", plot_gpu_metrics), ("memory", plot_memory)):
        path = None if save_prefix is None else f"{os.fspath(save_prefix)}.{suffix}.png"
        out.append(fn(s, save=path, show=show))
    return out


def _short(name: str, n: int = 50) -> str:
    name = str(name)
    return name if len(name) <= n else name[: n - 3] + "..."
