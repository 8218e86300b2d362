"""The GPU Flight text report. It is written once, in C++ (src/report/); this module only calls it."""
from __future__ import annotations

import json
import os
import warnings
from typing import Optional, Union

from . import _gpufl as _C
from ._api import last_log_path

__all__ = ["generate_report", "generate_report_json", "compare_ranks", "log_prefix_path"]

_CHANNEL_SUFFIXES = (".device.log", ".scope.log", ".system.log")


def log_prefix_path(log_dir: Union[str, os.PathLike, None] = None, log_prefix: Optional[str] = None) -> str:
    """The prefix path of a log: `log_dir`/`log_prefix`.

    `log_prefix` defaults to the log_path of this process's latest init() (else "gpufl"). A channel file name
    ("run.device.log") is accepted in place of its prefix ("run").
    """
    if log_prefix is None:
        last = last_log_path()
        if last is not None and log_dir is None:
            return last
        log_prefix = os.path.basename(last) if last is not None else "gpufl"
    log_prefix = os.fspath(log_prefix)
    for suffix in _CHANNEL_SUFFIXES:
        if log_prefix.endswith(suffix):
            log_prefix = log_prefix[: -len(suffix)]
            break
    directory = "." if log_dir is None or os.fspath(log_dir) == "" else os.fspath(log_dir)
    return os.path.join(directory, log_prefix)


def _run(log_dir, log_prefix, top_n: int, session_id: Optional[str], as_json: bool) -> str:
    return _render(log_prefix_path(log_dir, log_prefix), top_n, session_id, as_json, warn=True)


def _render(prefix: str, top_n: int, session_id: Optional[str], as_json: bool, warn: bool) -> str:
    ok, text, read_warnings, error = _C.report(prefix, session_id or "", int(top_n), bool(as_json))
    if ok and warn and read_warnings:
        shown = "\n  ".join(read_warnings[:5])
        more = f"\n  ... and {len(read_warnings) - 5} more" if len(read_warnings) > 5 else ""
        warnings.warn(f"gpufl: {len(read_warnings)} problem(s) reading {prefix}:\n  {shown}{more}", stacklevel=3)
    if not ok:
        raise FileNotFoundError(error or f"no readable GPU Flight log under {prefix!r}")
    return text


def generate_report(
    log_dir: Union[str, os.PathLike, None] = None,
    log_prefix: Optional[str] = None,
    top_n: int = 10,
    session_id: Optional[str] = None,
) -> str:
    """Returns the text report of one session of the log `log_dir`/`log_prefix` (the latest session, or the one
    whose id starts with `session_id`). Raises FileNotFoundError when no readable log is there."""
    return _run(log_dir, log_prefix, top_n, session_id, False)


def generate_report_json(
    log_dir: Union[str, os.PathLike, None] = None,
    log_prefix: Optional[str] = None,
    top_n: int = 10,
    session_id: Optional[str] = None,
) -> dict:
    """The same report as data (the C++ report's JSON form, parsed)."""
    return json.loads(_run(log_dir, log_prefix, top_n, session_id, True))


def compare_ranks(prefixes, top_n: int = 10, session_id: Optional[str] = None) -> str:
    """The text comparison of several sessions as the ranks of one job (`gpufl report PREFIX...`): a summary per
    rank on one clock, the same scopes and kernels across ranks, and stragglers with how far behind and where.
    `prefixes`: log prefix paths (channel file names are accepted too). Raises FileNotFoundError when one has no
    readable log."""
    paths = [log_prefix_path(None, os.fspath(p)) for p in prefixes]
    ok, text, read_warnings, error = _C.report_ranks(paths, session_id or "", int(top_n))
    if not ok:
        raise FileNotFoundError(error or f"no readable GPU Flight log under {paths!r}")
    if read_warnings:
        warnings.warn(f"gpufl: {len(read_warnings)} problem(s) reading the ranks' logs", stacklevel=2)
    return text


def report_json_of_prefix(prefix: str, session_id: Optional[str] = None, top_n: int = 10) -> dict:
    """generate_report_json for a prefix path already resolved (log_prefix_path), without re-warning about
    what the reader skipped (the analyzer, which calls this, keeps those warnings itself)."""
    return json.loads(_render(prefix, top_n, session_id, True, warn=False))
