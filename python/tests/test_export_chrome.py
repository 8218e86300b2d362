"""`gpufl export --chrome`: the trace-event format's rules (required fields, balanced nesting and monotonic
timestamps per track, flows with both ends) and the values against the log, on the H200 fixtures and `sample`."""
import collections
import decimal
import json

import pytest

from test_export import PREFIXES, IDS
from trace_decode import log_records, run

REQUIRED = {"M": {"name", "args"}, "B": {"name", "cat", "args"}, "E": set(), "X": {"name", "cat", "dur", "args"},
            "C": {"name", "args"}, "s": {"name", "id"}, "f": {"name", "id", "bp"}, "i": {"name", "cat", "s", "args"}}


def ns(us):
    """Exact nanoseconds of a microsecond value written with three decimals."""
    value = decimal.Decimal(us) * 1000
    assert value == value.to_integral_value(), us
    return int(value)


@pytest.fixture(scope="module", params=PREFIXES, ids=IDS)
def chrome(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("chrome") / f"{request.param.name}.json"
    run("export", "--chrome", out, request.param)
    with open(out) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc, log_records(request.param)


def test_required_fields(chrome):
    doc, _ = chrome
    assert doc["displayTimeUnit"] == "ns"
    for e in doc["traceEvents"]:
        assert {"ph", "pid", "tid", "ts"} <= set(e), e
        assert REQUIRED[e["ph"]] <= set(e), e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if e["ph"] == "X":
            assert e["dur"] >= 0


def test_nesting_is_balanced_and_time_monotonic_per_track(chrome):
    doc, log = chrome
    stacks = collections.defaultdict(list)
    last = {}
    for e in doc["traceEvents"]:
        if e["ph"] not in "BEX":
            continue
        track = (e["pid"], e["tid"])
        assert e["ts"] >= last.get(track, e["ts"]), f"time goes back on {track}: {e}"
        last[track] = e["ts"]
        stack = stacks[track]
        while stack and stack[-1][0] == "X" and stack[-1][1] <= e["ts"]:
            stack.pop()  # complete slices that ended
        if e["ph"] == "B":
            stack.append(("B", None))
        elif e["ph"] == "E":
            assert stack and stack[-1][0] == "B", f"E without its B on {track} at {e['ts']}"
            stack.pop()
        else:
            end = e["ts"] + e["dur"]
            assert not stack or stack[-1][0] == "B" or end <= stack[-1][1], f"X overlaps its neighbour: {e}"
            stack.append(("X", end))
    unclosed = sum(1 for s in stacks.values() for kind, _ in s if kind == "B")
    assert unclosed == len(log["scope_begin"]) - len(log["scope_end"])  # scopes the log never closed


def test_kernels_and_scopes_carry_the_logged_values(chrome):
    doc, log = chrome
    defs = {d["k"]: d for d in log["kernel_def"]}
    kernels = {(e["args"]["correlation_id"], ns(e["ts"])): e for e in doc["traceEvents"]
               if e["ph"] == "X" and e["cat"] == "kernel"}
    assert len(kernels) == len(log["kernel_event"])
    for k in log["kernel_event"]:
        e = kernels[(k["corr"], k["start_ns"])]
        assert ns(e["dur"]) == k["end_ns"] - k["start_ns"] and e["name"] == defs[k["k"]]["demangled"]
        assert e["args"]["grid"] == defs[k["k"]]["grid"]
    scopes = {e["args"]["scope_id"]: e for e in doc["traceEvents"] if e["ph"] == "B"}
    for b in log["scope_begin"]:
        e = scopes[b["id"]]
        assert (e["tid"], ns(e["ts"]), e["name"]) == (b["tid"], b["ts_ns"], b["name"])


def test_flows_have_both_ends(chrome):
    doc, log = chrome
    starts = {e["id"]: e for e in doc["traceEvents"] if e["ph"] == "s"}
    ends = [e for e in doc["traceEvents"] if e["ph"] == "f"]
    assert len(starts) == len(ends)
    for f in ends:
        s = starts[f["id"]]
        assert s["ts"] <= f["ts"] and s["tid"] != f["tid"]
    if any(k.get("scope") for k in log["kernel_event"]) and log["scope_begin"]:
        assert ends


def test_counters_are_named_after_their_field(chrome):
    doc, log = chrome
    got = collections.Counter(e["name"] for e in doc["traceEvents"] if e["ph"] == "C")
    want = collections.Counter(f"GPU {r['gpu']} util_gpu (%)" for r in log["system_sample"] if "util_gpu" in r)
    for name, n in want.items():
        assert got[name] == n


def test_incidents_are_instant_events(tmp_path):
    from conftest import REPO

    prefix = REPO / "tests" / "golden" / "incident_cuda_error" / "case"
    out = tmp_path / "t.json"
    run("export", "--chrome", out, prefix)
    with open(out) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    instants = [e for e in doc["traceEvents"] if e["ph"] == "i"]
    assert len(instants) == 1
    e = instants[0]
    assert e["name"].startswith("cuda_error: cudaDeviceSynchronize returned cudaErrorIllegalAddress")
    assert e["s"] == "t" and e["cat"] == "incident" and names[(e["pid"], e["tid"])] == "incidents"
    assert ns(e["ts"]) == 60_002_350_000_000
    assert e["args"]["error_code"] == 700 and e["args"]["suspects"].count("\n") == 2

