"""The GPU Flight text report. It is written once, in C++ (src/report/); this module only calls it."""
from __future__ import annotations

import json
import os
import warnings
from typing import Dict, List, Optional, Union

from . import _gpufl as _C
from ._api import _requested_log_path, last_log_path, redirected_log_path

__all__ = ["generate_report", "generate_report_json", "compare_ranks", "log_prefix_path", "resolve_prefix",
           "list_prefixes"]

_CHANNEL_SUFFIXES = (".device.log", ".scope.log", ".system.log")


def _strip_channel(path: str) -> str:
    for suffix in _CHANNEL_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _has_log(prefix: str) -> bool:
    return any(os.path.exists(prefix + suffix) for suffix in _CHANNEL_SUFFIXES)


def list_prefixes(directory: Union[str, os.PathLike]) -> List[str]:
    """The log prefixes in `directory` (names before .device.log / .scope.log / .system.log), the most
    recently written first."""
    directory = os.fspath(directory) or "."
    newest: Dict[str, float] = {}
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    for entry in entries:
        for suffix in _CHANNEL_SUFFIXES:
            if entry.name.endswith(suffix) and entry.is_file():
                name = entry.name[: -len(suffix)]
                newest[name] = max(newest.get(name, 0.0), entry.stat().st_mtime)
    return sorted(newest, key=lambda n: (-newest[n], n))


def log_prefix_path(log_dir: Union[str, os.PathLike, None] = None, log_prefix: Optional[str] = None) -> str:
    """The prefix path of a log: `log_dir`/`log_prefix`.

    `log_prefix` defaults to the log_path of this process's latest init() (else "gpufl"). A channel file name
    ("run.device.log") is accepted in place of its prefix ("run"). No file is looked at (resolve_prefix does).
    """
    if log_prefix is None:
        last = last_log_path()
        if last is not None and log_dir is None:
            return last
        log_prefix = os.path.basename(last) if last is not None else "gpufl"
    log_prefix = _strip_channel(os.fspath(log_prefix))
    directory = "." if log_dir is None or os.fspath(log_dir) == "" else os.fspath(log_dir)
    return os.path.join(directory, log_prefix)


def resolve_prefix(log_dir: Union[str, os.PathLike, None] = None, log_prefix: Optional[str] = None) -> str:
    """The prefix path of the log that `log_dir` and `log_prefix` name, checked against the files there.

    - log_prefix given: `log_dir`/`log_prefix` (a channel file name is taken for its prefix). When that is the
      log_path this process gave init() but the session was recorded elsewhere (under `gpufl trace`, which
      sets GPUFL_LOG_PATH), the session just recorded is read, and a warning says where it is.
    - log_prefix None: this process's latest init() log when log_dir is None or holds it; else a prefix path
      or channel file given as log_dir; else the log in the directory log_dir (the most recent when there are
      several; a warning lists the others).

    Raises FileNotFoundError naming the directory and listing the logs that are there.
    """
    directory = "." if log_dir is None or os.fspath(log_dir) == "" else os.fspath(log_dir)
    if log_prefix is not None:
        prefix = log_prefix_path(directory, log_prefix)
        moved = redirected_log_path(prefix)
        if moved is not None and _has_log(moved):
            warnings.warn(f"gpufl: this process's init(log_path={_requested_log_path()!r}) was recorded to "
                          f"{moved} (GPUFL_LOG_PATH, set by `gpufl trace`); reading that session",
                          stacklevel=3)
            return moved
        if not _has_log(prefix):
            raise FileNotFoundError(_not_found(prefix))
        return prefix
    last = last_log_path()
    if last is not None:
        candidate = last if log_dir is None else os.path.join(directory, os.path.basename(last))
        if _has_log(candidate):
            return candidate
    if not os.path.isdir(directory):
        prefix = _strip_channel(directory)
        if _has_log(prefix):
            return prefix
        raise FileNotFoundError(_not_found(prefix))
    found = list_prefixes(directory)
    if not found:
        raise FileNotFoundError(f"no GPU Flight log in {directory!r} (no *.device.log, *.scope.log or "
                                "*.system.log files)")
    if len(found) > 1:
        others = ", ".join(found[1:6]) + (f" and {len(found) - 6} more" if len(found) > 6 else "")
        warnings.warn(f"gpufl: {len(found)} logs in {directory!r}; reading the most recent, {found[0]!r} "
                      f"(others: {others}; pass log_prefix= to choose)", stacklevel=3)
    return os.path.join(directory, found[0])


def _not_found(prefix: str) -> str:
    directory = os.path.dirname(prefix) or "."
    there = list_prefixes(directory)
    listing = (f"; the logs there: {', '.join(there[:10])}" + (" ..." if len(there) > 10 else "")) if there \
        else "; there is no log there"
    return (f"no GPU Flight log {os.path.basename(prefix)!r} in {directory!r} (expected "
            f"{os.path.basename(prefix)}.device.log, .scope.log or .system.log){listing}")


def _run(log_dir, log_prefix, top_n: int, session_id: Optional[str], as_json: bool, **text_options) -> str:
    return _render(resolve_prefix(log_dir, log_prefix), top_n, session_id, as_json, warn=True, **text_options)


def _render(prefix: str, top_n: int, session_id: Optional[str], as_json: bool, warn: bool,
            verbose: bool = False, wide: bool = False) -> str:
    ok, text, read_warnings, error = _C.report(prefix, session_id or "", int(top_n), bool(as_json),
                                               verbose=bool(verbose), wide=bool(wide))
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
    verbose: bool = False,
    wide: bool = False,
) -> str:
    """Returns the text report of one session of the log `log_dir`/`log_prefix` (the latest session, or the one
    whose id starts with `session_id`). `verbose`: Collection Notes in full (`gpufl report -v`); `wide`: kernel
    names whole (`gpufl report --wide`). Raises FileNotFoundError when no readable log is there."""
    return _run(log_dir, log_prefix, top_n, session_id, False, verbose=verbose, wide=wide)


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


def report_text_of_prefix(prefix: str, session_id: Optional[str] = None, top_n: int = 10) -> str:
    """generate_report for a prefix path already resolved (resolve_prefix)."""
    return _render(prefix, top_n, session_id, False, warn=False)
