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
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

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
    info, start_ns, duration_ns), or a log prefix path (or channel file, or directory), loaded here. viz depends on
    the analyzer's data; the analyzer does not import viz."""
    if isinstance(s, (str, os.PathLike)):
        from .analyzer import GpuFlightSession

        return GpuFlightSession(os.fspath(s))  # a prefix, a channel file or a directory
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
    new: np.ndarray = np.empty(len(s), dtype=bool)
    new[0] = True
    new[1:] = s[1:] > reach[:-1] + min_gap
    first = np.flatnonzero(new)
    last: np.ndarray = np.append(first[1:] - 1, len(s) - 1)
    return s[first], reach[last]


def _bars(ax, y: float, height: float, start: np.ndarray, end: np.ndarray, color, min_gap: float,
          min_width: Optional[float] = None, **kw):
    """Intervals as bars, each at least `min_width` wide (default min_gap / 2), so that a 5 us kernel in a
    second-long view is still seen and its legend color found."""
    s, e = merge_intervals(start, end, min_gap)
    if len(s):
        width = np.maximum(e - s, min_gap * 0.5 if min_width is None else min_width)
        ax.broken_barh(list(zip(s, width)), (y, height), facecolors=color, **kw)


# Kernel colors avoid the copy colors (green, red, gray) so a copy never reads as a kernel.
_KERNEL_COLORS = ["tab:blue", "tab:orange", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan",
                  "navy", "goldenrod", "teal", "crimson", "slateblue"]
_OTHER_KERNELS = "darkgray"
# Scopes: light fills, one per scope name, with a dark outline so that two adjacent instances stay two boxes.
_SCOPE_COLORS = ["#aec7e8", "#ffbb78", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#c7c7c7",
                 "#98df8a", "#ff9896"]
# Scope instances drawn one by one up to this many per lane level; past it, merged per name (still per level).
_MAX_SCOPE_BOXES = 3000
# Kernels and copies are drawn at least window / this wide (about 1.5 pixels of the default figure).
_VISIBLE_PER_WINDOW = 800
# The busy span is shown instead of the whole session when it covers less than this share of it.
_BUSY_ZOOM_BELOW = 0.85


def _scope_ends(s, sc) -> np.ndarray:
    """End (s since session start) of each scope; one never ended runs to the end of the session."""
    start = sc["start_s"].to_numpy(dtype=np.float64)
    open_end = (s.start_ns + s.duration_ns - sc["start_ns"]).to_numpy(dtype=np.float64)
    end = start + sc["duration_ns"].to_numpy(dtype=np.float64, na_value=np.nan) / 1e9
    return np.where(np.isnan(end), start + open_end / 1e9, end)


def _scope_window(s, name: str) -> Tuple[float, float]:
    """The span (s) of every instance of the scope `name` (a scope name, or a path "outer/inner") and of the
    kernels launched inside them."""
    sc = s.scopes
    if not len(sc):
        raise ValueError(f"time_range={name!r}: this session has no scopes")
    match = (sc["name"].astype(object) == name).to_numpy() | (sc["path"].astype(object) == name).to_numpy()
    if not match.any():
        names = sorted(set(sc["name"].astype(object)))
        raise ValueError(f"time_range={name!r}: no scope of that name or path; the scopes are: "
                         + ", ".join(map(str, names[:20])) + (" ..." if len(names) > 20 else ""))
    start = sc["start_s"].to_numpy(dtype=np.float64)[match]
    end = _scope_ends(s, sc)[match]
    lo, hi = float(start.min()), float(end.max())
    k = s.kernels  # and the GPU work launched inside it, which runs later (launches are asynchronous)
    if len(k):
        paths = k["scope"].astype(object).to_numpy()
        inside = np.array([isinstance(p, str) and (p == name or p.split("/")[-1] == name) for p in paths])
        if inside.any():
            k_start = k["start_s"].to_numpy()[inside]
            lo = min(lo, float(k_start.min()))
            hi = max(hi, float((k_start + k["duration_ns"].to_numpy()[inside] / 1e9).max()))
    return lo, hi


def _window(s, time_range, spans: Sequence[Tuple[np.ndarray, np.ndarray]]):
    """(t_lo, t_hi, idle_head, idle_tail): the x range to draw and, when it is the busy span (of the first of
    `spans` that is not empty) of a mostly idle session, the time before and after it (else None)."""
    duration = max(s.duration_ns / 1e9, 1e-9)
    if isinstance(time_range, str):
        lo, hi = _scope_window(s, time_range)
        pad = max((hi - lo) * 0.02, 1e-9)
        return lo - pad, hi + pad, None, None
    if time_range is not None:
        lo, hi = map(float, time_range)
        if not hi > lo:
            raise ValueError(f"time_range=({lo}, {hi}): the end must be after the start")
        return lo, hi, None, None
    for start, end in spans:
        if len(start):
            lo, hi = float(np.min(start)), float(np.max(end))
            break
    else:
        return 0.0, duration, None, None
    if hi - lo >= _BUSY_ZOOM_BELOW * duration:
        return 0.0, duration, None, None
    pad = max((hi - lo) * 0.03, 1e-9)
    lo_pad, hi_pad = max(lo - pad, 0.0), min(hi + pad, max(duration, hi + pad))
    return lo_pad, hi_pad, (lo if lo > 0 else None), (duration - hi if duration - hi > 0 else None)


def _kernel_labels(mangled: Sequence[str], width: int = 48) -> List[str]:
    """Legend names: short, and distinct wherever the kernels differ (the report's shortener)."""
    from . import _gpufl

    return list(_gpufl.short_names([str(m) for m in mangled], width))


def plot_timeline(session, save: Optional[_PathLike] = None, show: Optional[bool] = None,
                  top_kernels: int = 10, max_scope_depth: int = 6, figsize: Optional[Tuple[float, float]] = None,
                  resolution: int = 4000, time_range: Union[Tuple[float, float], str, None] = None,
                  title: Optional[str] = None):
    """Kernels per stream (colored by kernel: the `top_kernels` with the most GPU time in view each have a
    color named in the legend, the rest are gray), copies (thin bars above the kernels), and user scopes: one
    lane per thread, nested scopes stacked below their parent, on one time axis.

    By default the view is the busy span (first to last kernel or copy), with the idle time before and after it
    marked, when that span is a small part of the session. time_range=(t0, t1) zooms to that window (seconds
    since the session start); time_range="name" to the instances of the scope of that name or path and the
    kernels launched inside them. Kernels closer
    than window/resolution are drawn as one bar, so a million kernels stay a few thousand rectangles.
    """
    s = _session(session)
    k = s.kernels
    m = s.memcpy
    sc = s.scopes

    k_start = k["start_s"].to_numpy() if len(k) else np.array([])
    k_end = k_start + (k["duration_ns"].to_numpy() / 1e9 if len(k) else 0)
    m_start = m["start_s"].to_numpy() if len(m) else np.array([])
    m_end = m_start + (m["duration_ns"].to_numpy() / 1e9 if len(m) else 0)
    sc_start = sc["start_s"].to_numpy(dtype=np.float64) if len(sc) else np.array([])
    sc_end = _scope_ends(s, sc) if len(sc) else np.array([])
    # The busy span: of the kernels; of the copies when there are none; of the scopes when neither.
    busy = [(k_start, k_end), (m_start, m_end), (sc_start, sc_end)]
    busy_what = next((w for w, (st, _) in zip(("kernel", "copy", "scope"), busy) if len(st)), "kernel")
    t_lo, t_hi, idle_head, idle_tail = _window(s, time_range, busy)
    outside = _outside_note(t_lo, t_hi, m_start, m_end, "cop", busy_what != "copy")
    window = max(t_hi - t_lo, 1e-12)
    min_gap = window / max(resolution, 1)
    visible = window / _VISIBLE_PER_WINDOW

    def in_window(start, end):
        return (end >= t_lo) & (start <= t_hi)

    k_keep = in_window(k_start, k_end)
    k_start, k_end = k_start[k_keep], k_end[k_keep]
    k_stream = k["stream"].to_numpy()[k_keep] if len(k) else np.array([])
    k_func = k["mangled"].astype(object).to_numpy()[k_keep] if len(k) else np.array([], dtype=object)
    top: List[str] = []
    if len(k_func):
        dur = (k_end - k_start)
        totals = pd_totals(k_func, dur)
        top = totals[:min(top_kernels, len(_KERNEL_COLORS))]
    n_other = len(set(k_func)) - len(top) if len(k_func) else 0

    m_keep = in_window(m_start, m_end)
    m_start, m_end = m_start[m_keep], m_end[m_keep]
    m_stream = m["stream"].to_numpy()[m_keep] if len(m) else np.array([])
    m_kind = m["kind"].astype(object).to_numpy()[m_keep] if len(m) else np.array([], dtype=object)

    sc_keep = in_window(sc_start, sc_end) if len(sc) else np.array([], dtype=bool)
    scopes = sc.loc[sc_keep].assign(_s=sc_start[sc_keep], _e=sc_end[sc_keep]) if len(sc) else sc

    # Lanes, top to bottom: (label, kind, key, height). A thread's lane has one level per nesting depth.
    lanes: List[Tuple[str, str, Any, float]] = []
    for tid in sorted(set(int(t) for t in scopes["tid"])) if len(scopes) else []:
        depth = min(int(scopes.loc[scopes["tid"] == tid, "depth"].max()) + 1, max_scope_depth)
        lanes.append((f"thread {tid}\nscopes", "scope", (tid, depth), 0.55 * depth + 0.25))
    for st in sorted(set(int(x) for x in k_stream) | set(int(x) for x in m_stream)):
        lanes.append((f"stream {st}", "stream", st, 1.0))
    total_h = sum(h for *_, h in lanes)

    fig, ax = plt.subplots(figsize=figsize or (14, max(3.0, 0.55 * total_h + 2.0)))
    legend: Dict[str, object] = {}
    scope_color: Dict[str, str] = {}
    ticks, tick_labels = [], []
    y_top = total_h
    for label, kind, key, height in lanes:
        y0 = y_top - height
        ticks.append(y0 + height / 2)
        tick_labels.append(label)
        if kind == "scope":
            tid, depth = key
            level_h = (height - 0.25) / depth
            for d in range(depth):
                part = scopes[(scopes["tid"] == tid) & (scopes["depth"] == d)]
                y = y_top - 0.1 - (d + 1) * level_h
                names = part["name"].astype(object).to_numpy()
                st, en = part["_s"].to_numpy(), part["_e"].to_numpy()
                for name in dict.fromkeys(names):
                    color = scope_color.setdefault(str(name), _SCOPE_COLORS[len(scope_color) % len(_SCOPE_COLORS)])
                    sel = names == name
                    if len(part) <= _MAX_SCOPE_BOXES:  # every instance its own outlined box
                        ax.broken_barh(list(zip(st[sel], np.maximum(en[sel] - st[sel], min_gap * 0.5))),
                                       (y + 0.04, level_h - 0.08), facecolors=color, edgecolor="dimgray",
                                       linewidth=0.6)
                    else:
                        _bars(ax, y + 0.04, level_h - 0.08, st[sel], en[sel], color, min_gap, edgecolor="dimgray",
                              linewidth=0.6)
                for a, b, name in zip(st, en, names):
                    if min(b, t_hi) - max(a, t_lo) > window / 14:
                        ax.text((max(a, t_lo) + min(b, t_hi)) / 2, y + level_h / 2, str(name), ha="center",
                                va="center", fontsize=7, clip_on=True)
        else:
            sel = k_stream == key
            rest = sel & ~np.isin(k_func, top) if len(top) else sel
            if rest.any():  # drawn first: the named kernels go on top
                _bars(ax, y0 + 0.1, 0.6, k_start[rest], k_end[rest], _OTHER_KERNELS, min_gap, visible)
            for j in range(len(top)):  # the kernels with the most time first: the brief ones stay on top
                part = sel & (k_func == top[j])
                if part.any():
                    _bars(ax, y0 + 0.1, 0.6, k_start[part], k_end[part], _KERNEL_COLORS[j], min_gap, visible)
            msel = m_stream == key
            for kind_name, color in _COPY_COLORS.items():
                part = msel & (m_kind == kind_name)
                if part.any():
                    _bars(ax, y0 + 0.74, 0.16, m_start[part], m_end[part], color, min_gap, visible)
                    legend.setdefault(f"copy {kind_name}" if kind_name != "memset" else "memset",
                                      plt.Rectangle((0, 0), 1, 1, fc=color))
        y_top = y0
    for name, label in zip(top, _kernel_labels(top)):
        legend[label] = plt.Rectangle((0, 0), 1, 1, fc=_KERNEL_COLORS[top.index(name)])
    if n_other > 0:
        legend[f"{n_other} other kernel{'s' if n_other > 1 else ''}"] = plt.Rectangle((0, 0), 1, 1, fc=_OTHER_KERNELS)
    for name, color in list(scope_color.items())[:12]:
        legend[f"scope {name}"] = plt.Rectangle((0, 0), 1, 1, fc=color, ec="dimgray")

    ax.set_yticks(ticks)
    ax.set_yticklabels(tick_labels, fontsize=8)
    ax.set_ylim(0, max(total_h, 1))
    ax.set_xlim(t_lo, t_hi)
    idle = []
    if idle_head is not None:  # the session was idle from 0 to idle_head, the start of the busy span
        ax.axvspan(t_lo, idle_head, color="0.92", zorder=0)
        idle.append(f"{_fmt_s(idle_head)} before the first {busy_what}{outside[0]}")
    if idle_tail is not None:
        ax.axvspan(s.duration_ns / 1e9 - idle_tail, t_hi, color="0.92", zorder=0)
        idle.append(f"{_fmt_s(idle_tail)} after the last {busy_what}{outside[1]}")
    unit = _time_axis(ax, window)
    ax.set_xlabel(f"time since session start ({unit})" + (f"; not shown (gray): {', '.join(idle)}" if idle else ""))
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(title or f"{s.info.get('app', '')}: kernels, copies and scopes")
    if legend:
        ax.legend(legend.values(), legend.keys(), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7,
                  frameon=False)
    if not lanes:
        ax.text(0.5, 0.5, "no kernels, copies or scopes", transform=ax.transAxes, ha="center", va="center")
    fig.tight_layout()
    return _finish(fig, save, show)


def _time_axis(ax, window: float) -> str:
    """Tick labels in ms (or us) when the window is short, so that they read "146.75" rather than "0.14675";
    the data stay in seconds. Returns the unit."""
    from matplotlib.ticker import FuncFormatter

    if window >= 2.0:
        return "s"
    scale, unit = (1e3, "ms") if window >= 2e-3 else (1e6, "us")
    span = window * scale
    digits = 0 if span >= 20 else 1 if span >= 2 else 2
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x * scale:,.{digits}f}"))
    return unit


def _outside_note(t_lo: float, t_hi: float, start: np.ndarray, end: np.ndarray, stem: str, count: bool):
    """(" (3 copies)", "") for the copies wholly before / after the window, when they are not what sets it."""
    if not count or not len(start):
        return "", ""
    before, after = int((end < t_lo).sum()), int((start > t_hi).sum())

    def words(n: int) -> str:
        return f" ({n} {stem}{'y' if n == 1 else 'ies'} not shown)" if n else ""

    return words(before), words(after)


def pd_totals(funcs: np.ndarray, durations: np.ndarray) -> List[str]:
    """Distinct values of `funcs`, by summed duration, largest first."""
    uniq, inverse = np.unique(funcs.astype(str), return_inverse=True)
    sums = np.bincount(inverse, weights=durations, minlength=len(uniq))
    order = np.argsort(-sums, kind="stable")
    return [str(uniq[i]) for i in order]


def _fmt_s(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def _lines(ax, df, col: str, scale: float, label: str, multi_gpu: bool, t_end: Optional[float] = None) -> bool:
    drawn = False
    if col not in df or not len(df):
        return drawn
    for gpu, part in df.groupby("gpu", sort=True):
        v = part[col].to_numpy(dtype=np.float64) * scale
        ok = ~np.isnan(v)
        if not ok.any():
            continue
        _step(ax, part["t_s"].to_numpy()[ok], v[ok], t_end, label=f"{label} (GPU {gpu})" if multi_gpu else label)
        drawn = True
    return drawn


def _step(ax, t: np.ndarray, v: np.ndarray, t_end: Optional[float] = None, **kw) -> None:
    """A sampled value as steps: it held from one sample to the next (a ramp would invent values in between),
    and the last one to `t_end` (the end of the session). Few samples: a dot on each, counted in the label."""
    if t_end is not None and len(t) and t_end > t[-1]:
        t, v = np.append(t, t_end), np.append(v, v[-1])
        n = len(t) - 1
    else:
        n = len(t)
    if n < 60 and "label" in kw:
        kw["label"] += f" ({n} sample{'s' if n != 1 else ''})"
    ax.step(t, v, where="post", linewidth=kw.pop("linewidth", 1.2), marker="." if n < 60 else None,
            markersize=4, markevery=list(range(n)) if n < 60 else None, **kw)


def _no_samples(ax, what: str) -> None:
    ax.text(0.5, 0.5, f"no samples ({what})", transform=ax.transAxes, ha="center", va="center", color="dimgray")


def plot_gpu_metrics(session, save: Optional[_PathLike] = None, show: Optional[bool] = None,
                     figsize: Tuple[float, float] = (12, 8), title: Optional[str] = None):
    """GPU utilization (SM and memory), clocks, power and temperature over time (NVML samples)."""
    s = _session(session)
    g = s.system
    multi = len(g) > 0 and g["gpu"].nunique() > 1
    t_end = s.duration_ns / 1e9
    fig, axes = plt.subplots(3, 1, figsize=figsize, sharex=True)
    ax_u, ax_c, ax_p = axes
    _lines(ax_u, g, "util_gpu", 1.0, "GPU util %", multi, t_end)
    _lines(ax_u, g, "util_mem", 1.0, "memory util %", multi, t_end)
    ax_u.set_ylabel("%")
    ax_u.set_ylim(-2, 102)
    _lines(ax_c, g, "clk_sm", 1.0, "SM clock", multi, t_end)
    _lines(ax_c, g, "clk_mem", 1.0, "memory clock", multi, t_end)
    ax_c.set_ylabel("MHz")
    _lines(ax_p, g, "power_mw", 1e-3, "power W", multi, t_end)
    ax_t = ax_p.twinx()
    if _lines(ax_t, g, "temp_c", 1.0, "temperature C", multi, t_end):
        ax_t.set_ylabel("C")
        for line, color in zip(ax_t.get_lines(), ["tab:red", "darkred", "salmon", "maroon"] * 4):
            line.set_linestyle("--")
            line.set_color(color)
    ax_p.set_ylabel("W")
    ax_p.set_xlabel("time since session start (s)")
    for ax, what in ((ax_u, "utilization"), (ax_c, "clocks"), (ax_p, "power")):
        ax.grid(alpha=0.3)
        if ax.get_lines():
            ax.legend(loc="upper left", fontsize=7)
        elif not (ax is ax_p and ax_t.get_lines()):
            _no_samples(ax, what if len(g) else "no GPU samples: NVML off or sampling disabled")
    if ax_t.get_lines():
        ax_t.legend(loc="upper right", fontsize=7)
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
    t_end = s.duration_ns / 1e9
    _lines(ax_v, g, "mem_used_bytes", 1.0 / (1 << 20), "VRAM used", multi, t_end)
    if len(h) and "proc_rss_bytes" in h and not h["proc_rss_bytes"].isna().all():
        rss = h.dropna(subset=["proc_rss_bytes"])
        _step(ax_v, rss["t_s"].to_numpy(), rss["proc_rss_bytes"].to_numpy() / (1 << 20), t_end,
              label="process RSS (host)", linestyle=":", linewidth=1)
    ax_v.set_ylabel("MiB")
    ax_v.grid(alpha=0.3)
    if ax_v.get_lines():
        ax_v.legend(loc="upper left", fontsize=7)
    else:
        _no_samples(ax_v, "device or host memory")

    ax_cum = ax_x.twinx()
    if len(m):
        kinds = m["kind"].astype(object).to_numpy()
        for kind_name in sorted(set(kinds)):
            part = m[kinds == kind_name].sort_values("start_s")
            color = _COPY_COLORS.get(kind_name, "black")
            ax_x.vlines(part["start_s"], 0, part["bytes"] / (1 << 20), colors=color, linewidth=1.5,
                        label=f"{kind_name} ({len(part)})")
            # Held to the end of the session, so that the total moved reads at the right edge.
            t_cum: np.ndarray = np.append(part["start_s"].to_numpy(), s.duration_ns / 1e9)
            cum = np.cumsum(part["bytes"].to_numpy()) / (1 << 20)
            ax_cum.step(t_cum, np.append(cum, cum[-1]), where="post", color=color, alpha=0.6, linestyle="--")
        ax_x.legend(loc="upper left", fontsize=7)
    else:
        ax_x.text(0.5, 0.5, "no memory transfers", transform=ax_x.transAxes, ha="center", va="center",
                  color="dimgray")
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

