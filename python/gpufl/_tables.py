"""Column tables from the C++ reader (gpufl._gpufl.load_session) -> pandas DataFrames.

The extension returns, per table, a dict of numpy arrays; a string column comes as (int32 codes, distinct values)
and becomes a pandas Categorical, so a million kernel rows never create a million Python strings. Kernel rows hold
the kernel's own fields; their kernel_def's fields (names, launch shape, occupancy) and scope path are computed
when asked for (_kernels.KernelFrame), by array indexing through the def table.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from . import _gpufl as _C
from ._kernels import KernelColumns, KernelFrame, as_kernel_frame

_NS = "int64"
_MISSING_END = np.iinfo(np.int64).min


def _col(v):
    if isinstance(v, tuple):
        codes, values = v
        return pd.Categorical.from_codes(np.asarray(codes), categories=pd.Index(list(values), dtype=object))
    if isinstance(v, list):
        return np.asarray(v, dtype=object)
    return v


def _frame(columns: Dict[str, object], order: Optional[List[str]] = None) -> pd.DataFrame:
    cols = {k: _col(v) for k, v in columns.items()}
    if order:
        cols = {k: cols[k] for k in order if k in cols} | {k: v for k, v in cols.items() if k not in order}
    return pd.DataFrame(cols, copy=False)


def _pc_sample_frame(raw: Dict[str, object]) -> pd.DataFrame:
    """PC samples; `patched` (bool): sampled on a launch SASS metrics instrumented too, so its stalls lean toward
    wait (PcSamplingWithSass, kernels with no other sampled launch)."""
    df = _frame({k: v for k, v in raw.items() if k != "patched"})
    df["patched"] = np.asarray(raw["patched"]).view(bool)
    return df


def _lookup(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Row index in `keys` of each value of `wanted` (-1 when absent). Keys are small ids: a table beats hashing."""
    keys = np.asarray(keys, dtype=np.int64)
    wanted = np.asarray(wanted, dtype=np.int64)
    if len(keys) == 0:
        return np.full(len(wanted), -1, dtype=np.int64)
    top = int(keys.max())
    if 0 <= keys.min() and top < 1 << 24:
        lut: np.ndarray = np.full(top + 2, -1, dtype=np.int64)
        lut[keys] = np.arange(len(keys), dtype=np.int64)
        clipped = np.where((wanted >= 0) & (wanted <= top), wanted, top + 1)
        return lut[clipped]
    return pd.Index(keys).get_indexer(wanted)


def _code_dtype(n_categories: int):
    """The codes dtype pandas keeps for a Categorical of n categories (so from_codes does not copy them)."""
    for t in (np.int8, np.int16, np.int32):
        if n_categories < np.iinfo(t).max:
            return t
    return np.int64


_GATHER_ROWS = 1 << 20


def _gather(table: np.ndarray, at: np.ndarray) -> np.ndarray:
    """table[at], a million rows at a time: numpy turns an index array into 8-byte indices before it gathers, which
    for 10M kernels would be an 80 MB temporary beside a result of 10 MB."""
    if len(at) <= _GATHER_ROWS:
        return table[at]
    out = np.empty(len(at), dtype=table.dtype)
    for i in range(0, len(at), _GATHER_ROWS):
        out[i:i + _GATHER_ROWS] = table[at[i:i + _GATHER_ROWS]]
    return out


class _Spread:
    """Spreads per-key values over rows that name a key (each kernel's def id, each row's scope path id), one
    gather with no 8-byte index per row when keys are small ids (a table indexed by the id)."""

    def __init__(self, keys: np.ndarray, wanted: np.ndarray):
        self._keys = np.asarray(keys, dtype=np.int64)
        self._wanted = np.asarray(wanted)
        top = max(int(self._keys.max()) if len(self._keys) else -1,
                  int(self._wanted.max()) if len(self._wanted) else -1)
        small = (not len(self._keys) or self._keys.min() >= 0) and \
            (not len(self._wanted) or self._wanted.min() >= 0) and top < 1 << 24
        self._slots = top + 1 if small else None
        self._rows = None if small else _lookup(self._keys, self._wanted)

    def codes(self, per_key: np.ndarray, dtype) -> np.ndarray:
        """per_key[row of each wanted key] as `dtype`; -1 where the key is not among the keys."""
        per_key = np.asarray(per_key).astype(dtype, copy=False)
        if self._slots is not None:
            table = np.full(self._slots, -1, dtype=dtype)
            table[self._keys] = per_key
            return _gather(table, self._wanted)
        assert self._rows is not None  # set whenever _slots is not
        out = per_key[np.maximum(self._rows, 0)] if len(per_key) else np.full(len(self._rows), -1, dtype=dtype)
        out[self._rows < 0] = -1
        return out

    def values(self, col) -> np.ndarray:
        """A per-key number column on the rows, copied per row so that it stays a number column (arithmetic,
        comparisons, mean()); float64 with NaN where the key is not among the keys."""
        per_key = np.asarray(col)
        at = self.codes(np.arange(len(per_key)), np.int32 if len(per_key) < 1 << 31 else np.int64)
        if not len(per_key):
            return np.full(len(at), np.nan)
        out = _gather(per_key, np.maximum(at, 0))
        if (at < 0).any():
            out = out.astype(np.float64)
            out[at < 0] = np.nan
        return out

    def categorical(self, col: pd.Categorical) -> pd.Categorical:
        """A per-key text column (a Categorical) on the rows, as a Categorical over the same values: one small
        code per row (1 byte under 127 distinct values), not a copy of the value."""
        per_key = np.asarray(col.codes, dtype=np.int64)
        return pd.Categorical.from_codes(self.codes(per_key, _code_dtype(len(col.categories))), dtype=col.dtype)


def scope_path_names(paths: pd.DataFrame) -> Dict[int, str]:
    """Path id -> "outer/inner" full name."""
    by_id = {int(p): (int(parent), str(name)) for p, parent, name in zip(paths["p"], paths["parent"], paths["name"])}
    full: Dict[int, str] = {}

    def resolve(p: int, guard: int = 0) -> str:
        if p in full:
            return full[p]
        if p not in by_id or guard > 256:
            return f"<scope {p}>"
        parent, name = by_id[p]
        text = name if parent == 0 else resolve(parent, guard + 1) + "/" + name
        full[p] = text
        return text

    for p in by_id:
        resolve(p)
    return full


def _path_column(ids: np.ndarray, names: Dict[int, str]) -> pd.Categorical:
    """A categorical of full scope path names for path ids (0 = outside any scope -> missing)."""
    keys = np.fromiter(names.keys(), dtype=np.int64, count=len(names))
    per_path = pd.Categorical.from_codes(np.arange(len(names)), categories=pd.Index(list(names.values()), dtype=object))
    return _Spread(keys, ids).categorical(per_path)


@dataclass
class SessionData:
    info: dict
    read: dict
    kernel_defs: pd.DataFrame
    kernels: pd.DataFrame
    memcpy: pd.DataFrame
    syncs: pd.DataFrame
    memory: pd.DataFrame
    scope_paths: pd.DataFrame
    scopes: pd.DataFrame
    gpu_samples: pd.DataFrame
    host_samples: pd.DataFrame
    sass_metrics: pd.DataFrame
    pc_samples: pd.DataFrame
    range_counters: pd.DataFrame
    notes: pd.DataFrame
    stacks: pd.DataFrame
    benchmarks: pd.DataFrame
    incidents: pd.DataFrame
    incident_launches: pd.DataFrame
    incident_blocked: pd.DataFrame
    incident_last_kernels: pd.DataFrame
    warnings: List[Tuple[str, int, str]] = field(default_factory=list)


def _kernel_def_columns() -> List[str]:
    """The kernel_def columns each kernel row carries: every field of the record's table (so a new field reaches
    the kernels table with no change here), less the def's id and context, and grid/block as text only."""
    keys = []
    for f in _C.record_schema()["kernel_def"]["fields"]:
        if f["kind"] != "object" and f["key"] not in ("k", "context"):
            keys.append(f["key"])
    return keys


_KERNEL_DEF_COLUMNS = _kernel_def_columns()


class _KernelDefColumns(KernelColumns):
    """The computed columns of the kernels table (_kernels.py): every kernel_def field through the row's `k`
    (text ones as Categoricals over the def table's values, number ones as numbers: float64 with NaN where a def
    lacks the value or the row's def is unknown), `end_ns`, `dur_ns` (the log's name of duration_ns), `start_s`
    (seconds since the session start) and `scope` (the full path name of scope_id)."""

    def __init__(self, defs: pd.DataFrame, path_names: Dict[int, str], t0: int):
        self.defs = defs
        self.path_names = path_names
        self.t0 = t0
        self.names = ["end_ns", "dur_ns", "start_s", "scope"] + \
            ["mangled" if c == "name" else c for c in _KERNEL_DEF_COLUMNS]

    def compute(self, frame: pd.DataFrame, name: str):
        if name == "end_ns":
            return frame["start_ns"].to_numpy() + frame["duration_ns"].to_numpy()
        if name == "dur_ns":
            return frame["duration_ns"].to_numpy()
        if name == "start_s":
            return (frame["start_ns"].to_numpy() - self.t0) / 1e9  # exact int64 difference, then seconds
        if name == "scope":
            return _path_column(frame["scope_id"].to_numpy(), self.path_names)
        col = self.defs["name" if name == "mangled" else name]
        by_def = _Spread(self.defs["k"].to_numpy(), frame["k"].to_numpy())
        if isinstance(col.dtype, pd.CategoricalDtype):
            return by_def.categorical(col.array)
        return by_def.values(col.to_numpy())


def _kernels(raw: dict, defs: pd.DataFrame, path_names: Dict[int, str], t0: int) -> KernelFrame:
    """One row per kernel execution: the kernel's own fields, ids as narrow as their values allow (uint8 ...
    uint64), and its short name as a Categorical over the defs' (a small code per row); the kernel_def fields and
    the derived columns are computed from them when used (_KernelDefColumns)."""
    k = np.asarray(raw["k"])
    cols: Dict[str, object] = {
        "start_ns": np.asarray(raw["start_ns"]),
        "duration_ns": np.asarray(raw["dur_ns"]),
        "name": _Spread(defs["k"].to_numpy(), k).categorical(defs["short_name"].array),
        "k": k,
        "stream": np.asarray(raw["stream"]),
        "scope_id": np.asarray(raw["scope"]),
        "corr": np.asarray(raw["corr"]),
        "instrumented": np.asarray(raw["instr"]).view(bool),
        "stack": np.asarray(raw["stack"]),
        "graph": np.asarray(raw["graph"]),
    }
    return as_kernel_frame(cols, _KernelDefColumns(defs, path_names, t0))


def _incident_tables(tables: dict, defs: pd.DataFrame, path_names: Dict[int, str], t0: int) -> Dict[str, pd.DataFrame]:
    """The incident records (docs/incidents.md): `incidents`, one row per incident (t_s: seconds since the session
    started; scope: the thread's scope path), and its lists as tables of their own, each row naming its incident
    by `incident` (the row of `incidents`): incident_launches (the launches in flight, with `short_name` for
    kernels and `scope` as a path), incident_blocked (threads waiting for the GPU) and incident_last_kernels (the
    last kernels of each stream, named by their kernel_def)."""
    inc = _frame(tables["incidents"], ["ts_ns", "kind", "reason"])
    inc.insert(1, "t_s", (inc["ts_ns"] - t0) / 1e9)
    inc["scope_id"] = inc.pop("scope")
    inc["scope"] = _path_column(inc["scope_id"].to_numpy(), path_names)

    launches = _frame(tables["incident_launches"], ["incident", "corr", "kind", "name"])
    names = launches["name"].astype(object).to_numpy()
    kinds = launches["kind"].astype(object).to_numpy()
    launches.insert(4, "short_name", [_C.short_kernel_name(str(n)) if k == "kernel" else n
                                      for n, k in zip(names, kinds)])
    launches["scope_id"] = launches.pop("scope")
    launches["scope"] = _path_column(launches["scope_id"].to_numpy(), path_names)
    launches["suspect"] = launches["suspect"].to_numpy().view(bool)

    blocked = _frame(tables["incident_blocked"], ["incident", "tid", "api", "since_ns"])
    blocked["scope_id"] = blocked.pop("scope")
    blocked["scope"] = _path_column(blocked["scope_id"].to_numpy(), path_names)

    last = _frame(tables["incident_last_kernels"], ["incident", "stream", "k"])
    last.insert(3, "name", _Spread(defs["k"].to_numpy(), last["k"].to_numpy()).categorical(defs["short_name"].array))
    return dict(incidents=inc, incident_launches=launches, incident_blocked=blocked, incident_last_kernels=last)


def load(prefix: str, session_id: Optional[str] = None, max_warnings: int = 100) -> SessionData:
    out = _C.load_session(prefix, session_id or "", int(max_warnings))
    read = out["read"]
    if not read["found_files"]:
        raise FileNotFoundError(f"no GPU Flight log files under prefix {prefix!r} "
                                f"(expected {prefix}.device.log, .scope.log or .system.log)")
    info = dict(out["session"])
    info["options"] = {}
    for key, text in info.pop("options_json", {}).items():
        try:
            info["options"][key] = json.loads(text)
        except (TypeError, ValueError):
            info["options"][key] = text
    tables = out["tables"]
    t0 = int(info.get("start_ns") or 0)
    if not info.get("has_start"):
        # No session_start was read (truncated log): take the earliest timestamp there is.
        firsts: List[int] = [int(np.min(tables[t][c])) for t, c in (("kernels", "start_ns"), ("scopes", "start_ns"),
                                                          ("gpu_samples", "ts_ns"), ("host_samples", "ts_ns"))
                             if len(tables[t][c])]
        t0 = int(min(firsts)) if firsts else 0
        info["start_ns"] = t0

    paths = _frame(tables["scope_paths"], ["p", "parent", "name", "depth"])
    path_names = scope_path_names(paths)
    paths["path"] = [path_names.get(int(p), "") for p in paths["p"]]

    defs = _frame(tables["kernel_defs"], ["k", "short_name", "name", "demangled"])
    kernels = _kernels(tables["kernels"], defs, path_names, t0)

    mem = _frame(tables["memcpy"])
    mem["is_memset"] = mem["is_memset"].to_numpy().view(bool)
    mem.insert(0, "duration_ns", mem["end_ns"] - mem["start_ns"])
    mem.insert(0, "start_s", (mem["start_ns"] - t0) / 1e9)
    mem["scope_id"] = mem.pop("scope")
    mem["scope"] = _path_column(mem["scope_id"].to_numpy(), path_names)
    dur_s = mem["duration_ns"].to_numpy() / 1e9
    with np.errstate(divide="ignore", invalid="ignore"):
        mem["throughput_gbps"] = np.where(dur_s > 0, mem["bytes"].to_numpy() / dur_s / 1e9, np.nan)

    syncs = _frame(tables["syncs"])
    syncs.insert(0, "duration_ns", syncs["end_ns"] - syncs["start_ns"])
    syncs.insert(0, "start_s", (syncs["start_ns"] - t0) / 1e9)
    syncs["scope_id"] = syncs.pop("scope")
    syncs["scope"] = _path_column(syncs["scope_id"].to_numpy(), path_names)

    memory = _frame(tables["memory"])
    memory["is_free"] = memory["is_free"].to_numpy().view(bool)
    memory.insert(0, "t_s", (memory["ts_ns"] - t0) / 1e9)
    memory["scope_id"] = memory.pop("scope")
    memory["scope"] = _path_column(memory["scope_id"].to_numpy(), path_names)

    sc = _frame(tables["scopes"], ["id", "name", "tag", "p", "depth", "tid", "start_ns", "end_ns"])
    sc.insert(2, "path", _path_column(sc["p"].to_numpy(), path_names))
    end = sc["end_ns"].to_numpy()
    open_ = end == _MISSING_END
    sc["end_ns"] = pd.arrays.IntegerArray(np.where(open_, 0, end).astype(np.int64), open_)
    sc["duration_ns"] = sc["end_ns"] - sc["start_ns"]
    sc["start_s"] = (sc["start_ns"] - t0) / 1e9
    sc = sc.rename(columns={"p": "path_id"})

    def timed(name: str) -> pd.DataFrame:
        df = _frame(tables[name], ["ts_ns"])
        if len(df.columns):
            df.insert(1, "t_s", (df["ts_ns"] - t0) / 1e9)
        return df

    notes = _frame(tables["notes"])
    stacks = _frame(tables["stacks"])
    return SessionData(
        info=info,
        read=read,
        kernel_defs=defs,
        kernels=kernels,
        memcpy=mem,
        syncs=syncs,
        memory=memory,
        scope_paths=paths,
        scopes=sc,
        gpu_samples=timed("gpu_samples"),
        host_samples=timed("host_samples"),
        sass_metrics=_frame(tables["sass_metrics"]),
        pc_samples=_pc_sample_frame(tables["pc_samples"]),
        range_counters=_frame(tables["range_counters"]),
        notes=notes,
        stacks=stacks,
        benchmarks=_frame(tables["benchmarks"]),
        **_incident_tables(tables, defs, path_names, t0),
        warnings=[tuple(w) for w in read["warnings"]],
    )
