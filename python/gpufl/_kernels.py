"""The kernels table: one row per kernel execution holding the kernel's own fields, with its definition's fields
(kernel_def: names, launch shape, registers, shared memory, occupancy, ...) and the derived columns computed when
asked for instead of copied onto every row.

Why: a session of 10 million kernels held each definition's dozen number fields per row, 100 bytes a kernel
(1.8 GB at 10M); the definitions are a few hundred rows. KernelFrame is a pandas DataFrame whose real columns are
the kernel's own (start_ns, duration_ns, name, k, stream, scope_id, corr, instrumented, stack, graph: 20-30 bytes a
kernel) and which answers the other names as columns computed from `k` (the definition's id) through the
kernel_defs table, or from the real columns:

    k.occupancy, k["occupancy"], k[k.occupancy < 0.5], k[["name", "occupancy"]], "occupancy" in k,
    k.groupby("mangled").dur_ns.sum(), k.groupby(["name", "grid"])["occupancy"].mean(),
    k.sort_values("occupancy"), k.with_defs("occupancy", "num_regs") (those as real columns), k.with_defs() (all)

Other pandas calls that take column names (query, merge on, loc[:, name], plots by name) see only the real
columns: call with_defs() first. Rows taken from the table (boolean masks, head, sort) stay KernelFrames.
"""
from __future__ import annotations

from typing import Dict, List

import pandas as pd


class KernelColumns:
    """The computed columns of a kernels table: `names`, and compute(frame, name) -> array or Categorical, from
    the frame's real columns. A plain object (no closures), so a KernelFrame pickles with it."""

    names: List[str] = []

    def compute(self, frame: pd.DataFrame, name: str):
        raise NotImplementedError

    def make(self, frame: pd.DataFrame, name: str) -> pd.Series:
        try:
            values = self.compute(frame, name)
        except KeyError as e:  # a real column the computation needs was dropped from this frame
            raise KeyError(f"kernels column {name!r} is computed from {e.args[0]!r}, which this frame no longer "
                           "has: keep it, or call with_defs() before selecting columns") from None
        return pd.Series(values, index=frame.index, name=name, copy=False)


class KernelFrame(pd.DataFrame):
    """One row per kernel execution; the kernel_def fields and derived columns computed on use (module doc)."""

    _metadata = ["_gpufl_columns"]

    @property
    def _constructor(self):
        return KernelFrame

    # ------------------------------------------------------------------------------------ computed columns
    def _computed(self) -> List[str]:
        cols = self.__dict__.get("_gpufl_columns")
        return cols.names if cols is not None else []

    def _is_computed(self, key) -> bool:
        return isinstance(key, str) and key in self._computed() and key not in self.columns

    @property
    def computed_columns(self) -> List[str]:
        """The names this table answers besides its real columns (the kernel_def fields and derived ones)."""
        return [c for c in self._computed() if c not in self.columns]

    def _column(self, name: str) -> pd.Series:
        return self.__dict__["_gpufl_columns"].make(self, name)

    def with_defs(self, *names: str) -> "KernelFrame":
        """This table with the named computed columns (every one when none is named) added as real columns: for
        pandas calls that take column names this table does not hold (query, merge, plotting by name)."""
        wanted = list(names) or self.computed_columns
        unknown = [n for n in wanted if n not in self._computed() and n not in self.columns]
        if unknown:
            raise KeyError(f"no kernels column {unknown[0]!r}")
        return self.assign(**{n: self._column(n) for n in wanted if self._is_computed(n)})

    def __getattr__(self, name: str):
        if not name.startswith("_") and self._is_computed(name):
            return self._column(name)
        return super().__getattr__(name)

    def __getitem__(self, key):
        if isinstance(key, str) and self._is_computed(key):
            return self._column(key)
        if isinstance(key, list) and any(self._is_computed(k) for k in key if isinstance(k, str)):
            return self.with_defs(*[k for k in key if self._is_computed(k)])[key]
        return super().__getitem__(key)

    @property
    def loc(self):
        """pandas' .loc, which also takes computed column names: k.loc[0, "occupancy"], k.loc[mask, ["name",
        "num_regs"]] (the rows are taken first, then the columns computed for them)."""
        return _ComputedLoc(self, super().loc)

    def __contains__(self, key) -> bool:
        return super().__contains__(key) or self._is_computed(key)

    def _resolve(self, by):
        """Column names among `by` that are computed become their Series (named), as groupby and sort accept."""
        if isinstance(by, str) and self._is_computed(by):
            return self._column(by)
        if isinstance(by, list):
            return [self._column(b) if self._is_computed(b) else b for b in by]
        return by

    def groupby(self, by=None, *args, **kwargs):
        return super().groupby(self._resolve(by), *args, **kwargs)

    def sort_values(self, by, *args, **kwargs):
        names = [by] if isinstance(by, str) else list(by) if isinstance(by, (list, tuple)) else []
        extra = [n for n in names if self._is_computed(n)]
        if not extra:
            return super().sort_values(by, *args, **kwargs)
        return self.with_defs(*extra).sort_values(by, *args, **kwargs)


class _ComputedLoc:
    """Wraps a KernelFrame's _LocIndexer: a (rows, columns) key naming computed columns selects the rows, adds
    those columns to them and selects again; everything else goes to pandas' indexer as it is."""

    def __init__(self, frame: KernelFrame, base):
        self._frame = frame
        self._base = base

    def __getitem__(self, key):
        if isinstance(key, tuple) and len(key) == 2:
            rows, cols = key
            names = [cols] if isinstance(cols, str) else list(cols) if isinstance(cols, list) else []
            extra = [n for n in names if self._frame._is_computed(n)]
            if extra:
                one = pd.api.types.is_scalar(rows)
                part = self._base[[rows] if one else rows]
                got = pd.DataFrame.loc.fget(part.with_defs(*extra))[:, cols]
                return got.iloc[0] if one and isinstance(got, pd.Series) and len(got) == 1 else got
        return self._base[key]

    def __setitem__(self, key, value):
        self._base[key] = value

    def __getattr__(self, name):
        return getattr(self._base, name)


def as_kernel_frame(columns: Dict[str, object], computed: KernelColumns) -> KernelFrame:
    frame = KernelFrame(columns, copy=False)
    frame._gpufl_columns = computed
    return frame
